"""Which rows of a report the gate names: those whose minimum-effect test (the verdict `regressed`'s) survives
Benjamini-Hochberg over every row judged, since many rows of identical code flag some by chance; Holm's step-down was
too strict at many rows on few degrees of freedom."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import stdtr, stdtrit  # t.sf's and t.ppf's values, at a fraction of scipy.stats' cost

from ...contract.naming import named_by, naming_nothing
from .sign_flip import global_p

FDR = 0.05
# The lockstep gate fails on either of two tests, the rows it names and the rows as a whole (sign_flip.py): their
# rates add up to FDR (Bonferroni, where each test holds its own rate), not twice it; most of it goes to naming
# rows, whose power a single regression needs.
WHOLE = 0.01


def gate_rate(gate_on: str) -> float:
    """The rate at which a gate on `gate_on`'s table names rows: in lockstep, FDR less the whole rows' test's."""
    return FDR - WHOLE if gate_on == "lockstep" else FDR


def p_beyond(value: float, low: float, high: float, threshold: float, df: float = math.inf) -> float:
    """One-sided p-value of "the change is at most 1 + threshold" from its 95% interval (t on `df`), on the side
    facing the threshold; 1 where unmeasured."""
    if not all(math.isfinite(x) and x > 0 for x in (value, low, high)) or low == high:
        return 1.0
    edge = math.log1p(threshold)
    quantile = stdtrit(df, 0.975)
    se = abs(math.log(value) - math.log(low if value > 1 + threshold else high)) / quantile
    if se == 0:
        return 0.0 if math.log(value) > edge else 1.0
    return float(stdtr(df, -(math.log(value) - edge) / se))  # t.sf((log(value) - edge) / se, df)


def benjamini_hochberg(p_values: Sequence[float], rate: float = FDR) -> list[bool]:
    """Benjamini-Hochberg's step-up at `rate`: valid for independent or positively dependent rows (as rows sharing a
    machine drift are)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    passed = [rank for rank, i in enumerate(order, start=1) if p_values[i] <= rank / len(p_values) * rate]
    rejected = [False] * len(p_values)
    for i in order[:max(passed, default=0)]:
        rejected[i] = True
    return rejected


def _measured(table: pd.DataFrame, value: str) -> pd.Series:
    """The rows with a change and its interval (not a configuration or mode on one side only); column by column, as
    the calibration judges hundreds of subsets."""
    columns = [value, f"{value}_ci_low", f"{value}_ci_high"]
    if not len(table) or not set(columns) <= set(table.columns):
        return pd.Series(False, index=table.index)
    numbers = np.column_stack([pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float) for c in columns])
    return pd.Series((numbers > 0).all(axis=1), index=table.index)  # a missing number is not above 0


KEY = ("study", "config_id", "variant", "mode")


def _keys(table: pd.DataFrame) -> list[str]:
    """Rows as compare.primary names them."""
    return ["/".join(map(str, key)) for key in zip(*(table[c] for c in KEY), strict=True)] if len(table) else []


def declared(table: pd.DataFrame, primary: Sequence[str] = ()) -> pd.Series:
    """The rows the gate judges: those a pattern of `primary` matches (shell wildcards), every row without one."""
    if not primary:
        return pd.Series(True, index=table.index, dtype=bool)
    return pd.Series([named_by(k, primary) for k in _keys(table)], index=table.index, dtype=bool)


def unmatched(table: pd.DataFrame, primary: Sequence[str], value: str) -> tuple[list[str], list[str]]:
    """The patterns of `primary` no measured row matches (else a typo would gate on nothing); measured keys to show."""
    keys = [k for k, measured in zip(_keys(table), _measured(table, value), strict=True) if measured]
    return naming_nothing(primary, keys), keys[:3]


def _df(df: object) -> float:
    """A row's degrees of freedom: infinite where it records none."""
    return float(df) if isinstance(df, int | float) and df > 0 else math.inf


def surviving(table: pd.DataFrame, value: str, threshold: float, primary: Sequence[str] = (),
              rate: float = FDR) -> pd.Series:
    """Per row, whether its change beyond the threshold survives Benjamini-Hochberg at `rate` over the measured rows
    `primary` declares (`value`: the change's column)."""
    measured = _measured(table, value) & declared(table, primary)
    kept = pd.Series(False, index=table.index)
    rows = table[measured]
    if len(rows):
        changes = [rows[c].to_numpy(dtype=float).tolist() for c in (value, f"{value}_ci_low", f"{value}_ci_high")]
        dfs = rows["df"].to_numpy(dtype=object) if "df" in rows else [None] * len(rows)
        p = [p_beyond(v, low, high, threshold, _df(df)) for v, low, high, df in zip(*changes, dfs, strict=True)]
        kept[rows.index] = benjamini_hochberg(p, rate)
    return kept


VERDICT_P = 0.025  # a row is regressed where its whole 95% interval lies above the threshold: p_beyond <= 2.5%
SPIKE = 0.10  # the single-row slowdown whose chance of being named the report states
POWER = 0.90  # the chance at which it states the smallest single-row slowdown named


def one_row_reach(table: pd.DataFrame, value: str, threshold: float, spike: float = SPIKE,
                  primary: Sequence[str] = (), rate: float = FDR) -> pd.DataFrame:
    """Per measured row `primary` declares, were it alone slowed (p <= rate / m and VERDICT_P): the slowdown named
    with POWER chance (`named_at`) and a `spike`'s chance (`power_at_spike`)."""
    rows = table[_measured(table, value) & declared(table, primary)]
    found = {}
    for index, r in zip(rows.index, rows.itertuples(), strict=True):
        df = _df(getattr(r, "df", None))
        se = (math.log(getattr(r, value)) - math.log(getattr(r, f"{value}_ci_low"))) / stdtrit(df, 0.975)
        bar = stdtrit(df, 1 - min(rate / len(rows), VERDICT_P))  # one-sided, as p_beyond
        if se > 0:
            found[index] = {
                "named_at": math.expm1(math.log1p(threshold) + se * (bar + stdtrit(df, POWER))),
                "power_at_spike": float(stdtr(df, (math.log1p(spike) - math.log1p(threshold)) / se - bar))}
    return pd.DataFrame.from_dict(found, orient="index", columns=["named_at", "power_at_spike"])


def reach_line(table: pd.DataFrame, value: str, threshold: float, primary: Sequence[str] = (),
               rate: float = FDR) -> str:
    """The report's statement of the one regression the gate can find over its rows."""
    reach = one_row_reach(table, value, threshold, primary=primary, rate=rate)
    m = int((_measured(table, value) & declared(table, primary)).sum())
    if reach.empty:
        return ""
    named = reach.named_at
    among = f"the {m} declared" if primary else f"these {m}"
    return (f"One row slowed alone among {among}: the gate would name it {POWER:.0%} of the time if it slowed by "
            f"{named.median():.1%} (the row of median precision; {named.min():.1%} the most precise, "
            f"{named.max():.1%} the least), and a {SPIKE:.0%} slowdown of that row "
            f"{reach.power_at_spike.median():.0%} of the time "
            + (f"(the correction asks p <= {rate:g} / {m} of a row slowed alone; every row slowed at once pays "
               "far less)." if rate / m < VERDICT_P else
               f"(its own verdict asks p <= {VERDICT_P:g}: its whole 95% interval above the threshold)."))


def _whole(table: pd.DataFrame, threshold: float, rate: float) -> str:
    """The lockstep gate's other test, as the gate runs it on the judged rows (sign_flip.py), and what it found."""
    p = global_p(table, threshold) if len(table) else None
    found = "not run (no row of two processes or more)" if p is None else f"p = {p:.3g}" + (
        ", **slower as a whole**" if p <= FDR - rate else "")
    return f"; the rows as a whole tested at the other {FDR - rate:.0%} ({found}), the two tests' rates adding up to " \
        f"{FDR:.0%}"


def line(table: pd.DataFrame, value: str, threshold: float, primary: Sequence[str] = (),
         rate: float = FDR) -> list[str]:
    """The report's statement of the control at `rate`, and what it kept of the rows called regressed one by one."""
    mine, measured = declared(table, primary), _measured(table, value)
    judged = measured & mine
    flagged = (table.verdict.eq("regressed") & mine) if len(table) else pd.Series(dtype=bool)
    kept = int((flagged & surviving(table, value, threshold, primary, rate)).sum()) if len(table) else 0
    over = (f"the {int(judged.sum())} measured rows compare.primary declares ({', '.join(primary)}; the other "
            f"{int(measured.sum() - judged.sum())} are reported, not gated)" if primary
            else f"all {int(judged.sum())} measured rows")
    unconfirmed = int(flagged.sum()) - kept
    said = (f"Across the report: a row is regressed where its whole 95% interval lies above 1 + {threshold:g}; the "
            f"gate (`compare_gate`, where a run asks for it) names the rows whose test of that survives "
            f"Benjamini-Hochberg over {over} (at most "
            f"{rate * 100:g}% of the named rows expected false"
            + (_whole(table[mine], threshold, rate) if rate < FDR else "") + "): "
            + (f"{kept} of the {int(flagged.sum())} regressed do" if flagged.any() else "no row is regressed")
            + (f" ({'the other ' if kept else ''}{unconfirmed} passed the threshold alone, not the correction: time "
               "them again before acting on them). " if unconfirmed else ". ")
            + reach_line(table, value, threshold, primary, rate))
    return [said.rstrip(), ""]
