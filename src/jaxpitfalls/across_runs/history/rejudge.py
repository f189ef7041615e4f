"""A published release history rejudged by this checkout's fit from its job table, without timing again:

    jaxpitfalls history rejudge docs/results/history/equinox.csv equinox

What else changed between releases is read only from the versions the jobs recorded.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from ... import results
from .history import steps_table, summary_lines
from .primary import family_text
from .release_levels import release_levels


def recorded_environments(ratios: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Each release's environment as far as its job table records it: the versions its first job ran."""
    return {release: {"packages": dict(p.rsplit(" ", 1) for p in str(versions).split(", ") if " " in p)}
            for release, versions in ratios.groupby("release", sort=False).versions.first().items()}


def read_table(path: str | Path) -> pd.DataFrame:
    """A history's job table, its releases as written (a release such as 0.5 is not a number)."""
    return pd.read_csv(path, dtype={"release": str, "versions": str}, keep_default_na=False,
                       na_values={c: [""] for c in ("ratio", "ratio_ci_low", "ratio_ci_high", "ratio_df")})


def rejudged(ratios: pd.DataFrame, package: str, primary: tuple[str, ...] = ()) -> pd.DataFrame:
    """The steps table this checkout finds in a job table, releases in its order (`primary`: history.primary)."""
    releases = list(dict.fromkeys(ratios.release))
    return steps_table(release_levels(ratios), releases, package, recorded_environments(ratios), primary)


def main(argv: list[str] | None = None) -> int:
    """Print the summary's line per series, as the history's report writes them."""
    parser = argparse.ArgumentParser(prog="jaxpitfalls history rejudge", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", help="a history's job table (results/tables/history.csv, docs/results/history/*.csv)")
    parser.add_argument("package", help="the package whose releases it timed (history.package), e.g. equinox")
    parser.add_argument("--steps", help="also write the steps table here (CSV)")
    parser.add_argument("--primary", action="append", default=[], metavar="PATTERN",
                        help="a series declared primary, as history.primary names it (repeat for several)")
    args = parser.parse_args(argv)
    ratios = read_table(args.table)
    recorded = sorted({p for env in recorded_environments(ratios).values() for p in env["packages"]})
    if args.package not in recorded:
        parser.error(f"{args.table} records no release of {args.package!r}: its jobs ran {', '.join(recorded)}")
    steps = rejudged(ratios, args.package, tuple(args.primary))
    if args.primary:  # over which series each step was corrected, and a pattern that named none
        print(f"Steps corrected {family_text(steps, args.primary)}.")
    print("\n".join(summary_lines(steps, args.package)))
    if args.steps:
        results.write_csv(args.steps, steps)
    return 0
