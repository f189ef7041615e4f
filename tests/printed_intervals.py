"""Every number a report prints with a 95% interval, and where each may come from: a row of the snapshot's tables, or
what today's code makes of them. A number from neither is an estimate the tables no longer hold."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

NUMBER = r"-?\d+(?:\.\d+)?"
PRINTED = re.compile(rf"(?<![\w.\[-])({NUMBER})(x|%| ms| µs| ns| s)? \[({NUMBER}), ({NUMBER})\]")


def printed(text: str) -> list[tuple[str, str, tuple[str, str]]]:
    """(value, unit, (low, high)) for each number printed with its interval, as printed."""
    return [(m[1], m[2] or "", (m[3], m[4])) for m in PRINTED.finditer(text)]


SCALES = {"": (1, 100, 1e3), "x": (1,), "%": (1, 100), " ms": (1,), " µs": (1e3,), " ns": (1e6,), " s": (1, 1e-3)}


def _formatted(value: float, low: float, high: float) -> set[tuple[float, str, str, str]]:
    """A table's (value, low, high) as the report may print it, each with the scale it is printed at: 3, 2 or 1
    decimals (3 significant digits below a hundredth, at most 4 from 100 up: formatting.fixed_at_most_four), as a
    percentage, or a time in ms as µs (a medians table's cells, and formatting.duration_interval's) or ns."""
    from jaxpitfalls.formatting import fixed, fixed_at_most_four, short

    return {(scale, *(form(x * scale, d) for x in (value, low, high))) for form in (fixed, fixed_at_most_four)
            for d, scale in ((3, 1), (2, 1), (1, 1), (1, 100), (3, 1e3), (3, 1e-3))
            } | {(scale, *(short(x * scale) for x in (value, low, high))) for scale in (1e3, 1e6)}


def table_triples(snapshot: Path) -> set[tuple[float, str, str, str]]:
    """Every (scale, value, low, high) a snapshot's tables hold: a column beside its `_ci_low`/`_ci_high` (or, for
    a time, `_ci_low_ms`/`_ci_high_ms`)."""
    found = set()
    for path in snapshot.glob("tables/*/*.csv"):
        table = pd.read_csv(path)
        for column in table.columns:
            for low, high in ((f"{column}_ci_low", f"{column}_ci_high"),
                              (column.replace("_ms", "_ci_low_ms"), column.replace("_ms", "_ci_high_ms"))):
                if low != column and {low, high} <= set(table.columns):
                    for row in table[[column, low, high]].dropna().itertuples(index=False):
                        found |= _formatted(*row)
    return found


def held(rows: set[tuple[float, str, str, str]], value: str, unit: str, bounds: tuple[str, str]) -> bool:
    """Whether a printed number with its interval is a table row's, at a scale its unit allows (a time in ms
    printed as µs, not as ms a thousand times over)."""
    return any((scale, value, *bounds) in rows for scale in SCALES.get(unit, (1,)))


def derived_now(snapshot: Path) -> list[str]:
    """What today's code prints from the snapshot's tables beyond their rows: the claims' scorecard and how each
    was judged, and each study's own tables (fitted exponents, pooled figures)."""
    from jaxpitfalls import registry
    from jaxpitfalls.across_runs.reference.reference import table_paths
    from jaxpitfalls.across_runs.reference.rendered import kept_studies, snapshot_claims
    from jaxpitfalls.report.scorecard import scorecard
    from jaxpitfalls.report.tables.aggregate import read_tables, without_twins

    claims, here = snapshot_claims(snapshot)
    texts = [scorecard.scorecard_section(claims), scorecard.judging_section(claims, here)]
    for study in kept_studies(snapshot):
        tables = without_twins(read_tables(table_paths(snapshot, study), twins=True))
        texts += [df.to_string() for _, _, df in registry.report(study).tables(tables)]
    return texts
