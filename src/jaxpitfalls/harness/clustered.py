"""Shares over rows that share fresh processes, with intervals that do not count the rows as independent
(docs/decisions.md#the-calibrations-shares-over-rows-that-share-processes).

A share's interval is Wilson's over the effective rows: the rows over a design effect (Kish), shrunk for t on the
configurations less one (Korn and Graubard).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import t

from .stats import Z_95, wilson


def _share_effect(hits: pd.Series, clusters: pd.Series) -> float:
    """The variance of the share of `hits` with `clusters` as units over the binomial one; nan where all rows agree
    or one cluster."""
    values = hits.astype(float).reset_index(drop=True)
    share, n = float(values.mean()), len(values)
    if clusters.nunique() < 2 or share in (0.0, 1.0):
        return math.nan
    return _clustered_variance(values, clusters) / (share * (1 - share) / n)


def _clustered_variance(values: pd.Series, clusters: pd.Series) -> float:
    """The variance of the mean of `values`, `clusters` as the units (cluster-robust)."""
    units = clusters.nunique()
    sums = (values - values.mean()).groupby(clusters.to_numpy()).sum().to_numpy()
    return units / (units - 1) * float((sums ** 2).sum()) / len(values) ** 2


def _margin_effect(margins: pd.Series, clusters: pd.Series) -> float:
    """1 + (sum m^2 / n - 1) rho, rho the finite `margins`' intra-class correlation by cluster (one-way ANOVA, at
    least 0); 1 where it cannot be told."""
    values = margins.to_numpy(dtype=float)
    frame = pd.DataFrame({"e": values, "c": clusters.to_numpy()})[np.isfinite(values)]
    groups = frame.groupby("c").e
    n, k, m = len(frame), groups.ngroups, groups.size().to_numpy(dtype=float)
    if k < 2 or n <= k:
        return 1.0
    weighted = float((m ** 2).sum()) / n
    between = float((m * (groups.mean().to_numpy() - frame.e.mean()) ** 2).sum()) / (k - 1)
    within = float(((frame.e - groups.transform("mean")) ** 2).sum()) / (n - k)
    m0 = (n - weighted) / (k - 1)
    rho = max(0.0, (between - within) / (between + (m0 - 1) * within)) if between + within > 0 else 0.0
    return 1 + (weighted - 1) * rho


def design_effect(margins: pd.Series, hits: pd.Series, clusters: pd.Series) -> float:
    """The larger of the `margins`' design effect (it holds where all rows agree) and the share's own; at least 1."""
    return max(1.0, _margin_effect(margins, clusters), np.nan_to_num(_share_effect(hits, clusters)))


def effective_rows(rows: int, effect: float, clusters: int) -> float:
    """rows / `effect`, less for t on `clusters` - 1 degrees of freedom in place of the normal's."""
    return rows / effect * ((Z_95 / float(t.ppf(0.975, clusters - 1))) ** 2 if clusters > 1 else 1.0)


def interval(count: int, rows: int, effective: float) -> tuple[float, float]:
    """Wilson's 95% interval of count / rows over `effective` rows."""
    return wilson(count * effective / rows, effective) if rows else (0.0, 1.0)


def margins(rows: pd.DataFrame, factor: float, threshold: float) -> dict[str, pd.Series]:
    """Per event a row can show, how far its interval lies past it in half-widths (log scale; positive: shown)."""
    with np.errstate(divide="ignore"):  # a lower end of 0 (a toy row's interval past floats): -inf, shows nothing
        low, high = np.log(rows.ratio_ci_low), np.log(rows.ratio_ci_high)
    half = ((high - low) / 2).where(lambda h: h > 0)
    regressed, improved = (low - math.log1p(threshold)) / half, (math.log1p(-threshold) - high) / half
    return {"flagged": np.maximum(regressed, improved), "regressed": regressed,
            "excludes_1": np.maximum(low, -high) / half,
            "covers": np.minimum(math.log(factor) - low, high - math.log(factor)) / half}


def mean_interval(values: pd.Series, clusters: pd.Series) -> tuple[float, float, float]:
    """The mean of `values` and its 95% interval, t on the clusters less one; none with one cluster."""
    mean, units = float(values.mean()), clusters.nunique()
    if units < 2:
        return mean, -math.inf, math.inf
    half = float(t.ppf(0.975, units - 1)) * math.sqrt(_clustered_variance(values, clusters))
    return mean, mean - half, mean + half


def share_interval(margins: pd.Series, hits: pd.Series, clusters: pd.Series) -> tuple[float, float, float]:
    """The share of `hits`: its effective rows and its 95% interval over them."""
    effective = effective_rows(len(hits), design_effect(margins, hits, clusters), clusters.nunique())
    return effective, *interval(int(hits.sum()), len(hits), effective)


def against(share: float, low: float, high: float, target: tuple[float, float]) -> str:
    """`yes`: share and interval within the target; `by its point`: the share alone; `no`: all outside."""
    if high < target[0] or low > target[1]:
        return "no"
    if not target[0] <= share <= target[1]:
        return "cannot tell"
    return "yes" if target[0] <= low and high <= target[1] else "by its point"


def least(words: set[str]) -> str:
    """The weakest of several `against` words."""
    return next(w for w in ("no", "cannot tell", "by its point", "yes") if w in words)


# `against` in a sentence: a target met by its point alone is not called met outright.
IN_WORDS = {"yes": "met", "by its point": "met by its point, its interval reaching beyond", "no": "**missed**",
            "cannot tell": "cannot tell"}
