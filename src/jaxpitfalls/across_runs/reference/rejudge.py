"""A published reference judged again by this checkout's rules from the tables it keeps, so that a rule change is
checked against published numbers in seconds; changed verdicts first.

    jaxpitfalls reference rejudge docs/results/reference/<snapshot> [--write [--why "..."]]

--write renders the whole snapshot again; a moved verdict needs --why.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ...report.scorecard.build import study_claims
from ...report.tables.aggregate import read_tables
from .reference import table_paths
from .scorecard_read import published_verdicts


def _claims(study: str, paths: dict[str, str]) -> list[dict]:
    return study_claims(study, paths, read_tables(paths))


def rejudged(snapshot: Path) -> pd.DataFrame:
    """Each claim of each kept study: its verdict as published and now, and what it measured now; changed first."""
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
    parser = argparse.ArgumentParser(prog="jaxpitfalls reference rejudge", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--write", action="store_true", help="render the whole snapshot again by today's code")
    parser.add_argument("--why", help="what changed, said beside each verdict that moves (required where one does)")
    args = parser.parse_args(argv)
    table = rejudged(args.snapshot)
    print(f"{int(table.changed.sum())} of {len(table)} verdicts changed (published -> now)\n")
    print(table.to_markdown(index=False))
    if args.write:
        from .rendered import render  # it reads this module's scorecard parser

        render(args.snapshot, args.why)
        print(f"\nrendered {args.snapshot} again from its tables by this checkout's code")
    return 0
