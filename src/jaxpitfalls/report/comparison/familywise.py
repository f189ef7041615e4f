"""False alarms across a report's rows: each row's 95% interval keeps its own 5%, but a comparison of 100 rows
of identical code would flag about five of them. The gate therefore fails only on changes that survive Holm's
step-down over every row it judges (the chance of any false alarm in the report held at 5%), each row's
p-value its own (a `p_value` column: the lockstep's t-test over processes) or read off its 95% interval (normal on
the log scale, where ratios' intervals are near symmetric: at Holm's smaller levels a t-interval read so would
give too small a p-value)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

ALPHA = 0.05
Z_95 = 1.959964


def p_value(value: float, low: float, high: float) -> float:
    """Two-sided p-value of "no change" (a ratio of 1) for a ratio known by its 95% interval, its spread read on
    the side facing 1 (bootstrap intervals are often lopsided: the p-value is below 5% exactly where that
    interval excludes 1, so a report of one row gates as the row's own verdict); 1 where nothing was measured."""
    if not all(math.isfinite(x) and x > 0 for x in (value, low, high)) or value == 1 or low == high:
        return 1.0
    edge = low if value > 1 else high
    se = abs(math.log(value) - math.log(edge)) / Z_95
    return math.erfc(abs(math.log(value)) / se / math.sqrt(2)) if se > 0 else 1.0


def holm(p_values: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down: the smallest p-value against alpha / m, the next against alpha / (m - 1), ..., until
    the first that fails; every hypothesis before it rejected. Controls the family-wise error at `alpha`
    whatever the rows' dependence."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - rank):
            break
        rejected[i] = True
    return rejected


def _measured(table: pd.DataFrame, value: str) -> pd.Series:
    """The rows with a change and its interval (not a configuration or mode on one side only)."""
    columns = [value, f"{value}_ci_low", f"{value}_ci_high"]
    if not len(table) or not set(columns) <= set(table.columns):
        return pd.Series(False, index=table.index)
    numbers = table[columns].apply(pd.to_numeric, errors="coerce")
    return (numbers > 0).all(axis=1) & numbers.notna().all(axis=1)


def surviving(table: pd.DataFrame, value: str) -> pd.Series:
    """Per row, whether its change survives Holm's step-down over all the table's measured rows (`value`: the
    column of the change, with its `<value>_ci_low/high`); rows without one never do."""
    measured = _measured(table, value)
    kept = pd.Series(False, index=table.index)
    rows = table[measured]
    if len(rows):
        own = "p_value" in rows
        p = [r.p_value if own and pd.notna(r.p_value) else
             p_value(*(getattr(r, c) for c in (value, f"{value}_ci_low", f"{value}_ci_high")))
             for r in rows.itertuples()]
        kept[rows.index] = holm(p)
    return kept


def line(table: pd.DataFrame, value: str) -> list[str]:
    """The report's statement of the control, and what it kept of the rows flagged one by one."""
    m = int(_measured(table, value).sum())
    flagged = table.verdict.isin(["regressed", "improved"]) if len(table) else pd.Series(dtype=bool)
    kept = int((flagged & surviving(table, value)).sum()) if len(table) else 0
    return [f"Across the report: each row's interval is a 95% one, so of {m} measured rows of unchanged code about "
            f"{ALPHA * m:.1f} would be flagged by chance; the gate fails only on changes that survive Holm's "
            f"step-down over all {m} (any false alarm at most {ALPHA:.0%}): {kept} of the {int(flagged.sum())} "
            "flagged do.", ""]
