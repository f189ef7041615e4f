"""Shares over rows that share their fresh processes: the calibration's rates with intervals that do not count
its rows as independent.

The rows of one configuration (its variants and modes) are timed by the same fresh processes, so a slow process
moves them together: 104 rows of 13 configurations hold less than 104 rows' information. A share's interval is
Wilson's over the effective number of rows: the rows divided by a design effect (Kish), and by (t / z)^2, t on
the configurations less one degrees of freedom (Korn and Graubard), since the design effect rests on 13 units.
The design effect is the larger of two:

- the clustering of each row's margin to its event, in units of its interval's half-width (how far the interval
  lies past what the event asks: covering the truth, excluding 1, beyond the threshold): the margins'
  intra-class correlation by configuration (one-way ANOVA), 1 + (sum m^2 / n - 1) rho. It needs no event to be
  seen, so it holds for a share every row agrees on (0 of 104 flagged);
- the share's own: its variance with the configurations as the units (the ratio estimator's) over the binomial
  one, where rows disagree.

On the published calibration's rows (104 a factor, 13 configurations) its shares counted 12-76 effective rows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import t

from ...harness.stats import Z_95, wilson


def _share_effect(hits: pd.Series, clusters: pd.Series) -> float:
    """The share of `hits` over rows grouped by `clusters`: its variance with the clusters as the units over the
    binomial one; nan where every row agrees or there is one cluster."""
    per = pd.DataFrame({"hit": hits.astype(float).to_numpy(), "cluster": clusters.to_numpy()}).groupby("cluster").hit
    k, m, n = per.sum().to_numpy(), per.size().to_numpy(), float(len(hits))
    share, units = float(k.sum()) / n, len(m)
    if units < 2 or share in (0.0, 1.0):
        return math.nan
    return units / (units - 1) * float(((k - share * m) ** 2).sum()) / n ** 2 / (share * (1 - share) / n)


def _margin_effect(margins: pd.Series, clusters: pd.Series) -> float:
    """1 + (sum m^2 / n - 1) rho: rho the intra-class correlation of the finite `margins` by cluster (one-way
    ANOVA, at least 0; m0 = (n - sum m^2 / n) / (k - 1) for unbalanced clusters); 1 with fewer than two."""
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
    """The design effect of the share of `hits` over rows grouped by `clusters`: the larger of its rows'
    `margins`' (each row's distance past its event, in half-widths) and its own, at least 1."""
    return max(1.0, _margin_effect(margins, clusters), np.nan_to_num(_share_effect(hits, clusters)))


def effective_rows(rows: int, effect: float, clusters: int) -> float:
    """rows / `effect`, less for t on `clusters` - 1 degrees of freedom in place of the normal's."""
    return rows / effect * ((Z_95 / float(t.ppf(0.975, clusters - 1))) ** 2 if clusters > 1 else 1.0)


def interval(count: int, rows: int, effective: float) -> tuple[float, float]:
    """Wilson's 95% interval of count / rows over `effective` rows."""
    return wilson(count * effective / rows, effective) if rows else (0.0, 1.0)


def margins(rows: pd.DataFrame, factor: float, threshold: float) -> dict[str, pd.Series]:
    """Per event a lockstep row can show, how far its interval lies past it in half-widths (log scale; positive:
    shown): beyond the threshold (regressed, improved, either: flagged), excluding 1, covering the truth."""
    low, high = np.log(rows.ratio_ci_low), np.log(rows.ratio_ci_high)
    half = ((high - low) / 2).where(lambda h: h > 0)
    regressed, improved = (low - math.log1p(threshold)) / half, (math.log1p(-threshold) - high) / half
    return {"flagged": np.maximum(regressed, improved), "regressed": regressed,
            "excludes_1": np.maximum(low, -high) / half,
            "covers": np.minimum(math.log(factor) - low, high - math.log(factor)) / half}


def share_interval(margins: pd.Series, hits: pd.Series, clusters: pd.Series) -> tuple[float, float, float]:
    """The share of `hits` over rows grouped by `clusters`: its effective rows and its 95% interval over them."""
    effective = effective_rows(len(hits), design_effect(margins, hits, clusters), clusters.nunique())
    return effective, *interval(int(hits.sum()), len(hits), effective)


def against(share: float, low: float, high: float, target: tuple[float, float]) -> str:
    """`yes` where the share lies within its target, `no` where its whole interval lies outside, `cannot tell`
    where the share is outside but its interval reaches the target (the configurations cannot rule it out)."""
    if target[0] <= share <= target[1]:
        return "yes"
    return "no" if high < target[0] or low > target[1] else "cannot tell"
