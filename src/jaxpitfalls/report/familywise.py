"""False alarms across a report's rows: each row's 95% interval keeps its own 5%, but a comparison of 100 rows
of identical code would flag about five of them. The gate therefore fails only on changes that survive Holm's
step-down over every row it judges (the chance of any false alarm in the report held at 5%), each row's
p-value read off its 95% interval (normal on the log scale, where ratios' intervals are near symmetric)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

ALPHA = 0.05
Z_95 = 1.959964


def p_value(value: float, low: float, high: float) -> float:
    """Two-sided p-value of "no change" (a ratio of 1) for a ratio known by its 95% interval; 1 where the
    interval is not a positive one (nothing measured)."""
    if not (value > 0 and low > 0 and high > low):
        return 1.0
    se = (math.log(high) - math.log(low)) / (2 * Z_95)
    return math.erfc(abs(math.log(value)) / se / math.sqrt(2))


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


def surviving(table: pd.DataFrame, value: str) -> pd.Series:
    """Per row, whether its change survives Holm's step-down over all the table's rows (`value`: the column of
    the change, with its `<value>_ci_low/high`)."""
    if not len(table):
        return pd.Series(dtype=bool)
    p = [p_value(*(getattr(r, c) for c in (value, f"{value}_ci_low", f"{value}_ci_high")))
         for r in table.itertuples()]
    return pd.Series(holm(p), index=table.index)


def line(table: pd.DataFrame, value: str) -> list[str]:
    """The report's statement of the control, and what it kept of the rows flagged one by one."""
    flagged = table.verdict.isin(["regressed", "improved"]) if len(table) else pd.Series(dtype=bool)
    kept = flagged & surviving(table, value) if len(table) else flagged
    return [f"Across the report: each row's interval is a 95% one, so of {len(table)} rows of unchanged code about "
            f"{ALPHA * len(table):.1f} would be flagged by chance; the gate fails only on changes that survive "
            f"Holm's step-down over all {len(table)} rows (any false alarm at most {ALPHA:.0%}): {int(kept.sum())} "
            f"of the {int(flagged.sum())} flagged do.", ""]
