"""Student's t over fresh processes (the independent units), the spread between processes pooled across a job's
rows: with 2 or 3 processes a row's own spread has 1 or 2 degrees of freedom, so spreads are pooled as in limma's
moderated t (Smyth 2004), the prior at half weight. It replaced a bootstrap that covered too rarely
(docs/decisions.md#pooled-spread-between-processes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import digamma, stdtr, stdtrit, zeta

LEVEL = 0.95


@dataclass(frozen=True)
class Prior:
    """The spread between processes a job's rows share: `variance` on `df` degrees of freedom (0: none)."""

    variance: float = 0.0
    df: float = 0.0


NO_PRIOR = Prior()


def _trigamma(y):
    """scipy's polygamma(1, y) to the bit, without its Python."""
    return zeta(2, y)


def _trigamma_inverse(x: float) -> float:
    """y with trigamma(y) = x: limma's Newton steps and limits (scipy.optimize's import cost every job 0.4 s)."""
    if x < 1e-6:
        return 1 / x
    if x > 1e7:
        return 1 / math.sqrt(x)
    y = 0.5 + 1 / x
    for _ in range(50):
        tri = float(_trigamma(y))
        step = tri * (1 - tri / x) / (-2 * float(zeta(3, y)))  # trigamma's derivative, polygamma(2, y)
        y += step
        if -step / y < 1e-8:
            break
    return y


def fit_prior(variances: Sequence[float], df: float | Sequence[float]) -> Prior:
    """limma's fitFDist at half weight, each row on its `df`; rows of variance or df 0 left out, under two: no prior."""
    s2, df = (np.asarray(a, dtype=float) for a in np.broadcast_arrays(np.asarray(variances, dtype=float), df))
    kept = (s2 > 0) & np.isfinite(s2) & (df > 0)
    s2, df = s2[kept], df[kept]
    if s2.size < 2:
        return NO_PRIOR
    e = np.log(s2) - digamma(df / 2) + np.log(df / 2)
    excess = float(e.var(ddof=1) - np.mean(_trigamma(df / 2)))  # the spread of log s^2 beyond what sampling gives
    d0 = 2 * _trigamma_inverse(excess) if excess > 0 else math.inf
    s0 = math.exp(float(e.mean()) + (digamma(d0 / 2) - math.log(d0 / 2) if excess > 0 else 0.0))
    return Prior(s0, min(d0, (s2.size - 1) * float(df.mean())) / 2)


@dataclass(frozen=True)
class Estimate:
    """A row's mean, 95% interval, p-value of mean 0, spread `sd` and degrees of freedom `df`."""

    mean: float
    low: float
    high: float
    p_value: float
    sd: float
    df: float
    pooled_sd: float = math.nan  # the spread between processes its interval rests on (the posterior's)

    def as_ratio(self) -> tuple[float, float, float]:
        """A mean of log-ratios as the ratio with its 95% interval (0 and inf where there is none)."""
        return math.exp(self.mean), math.exp(self.low), math.exp(self.high)


def _intervals(mean, variance, df, processes, sd) -> list[Estimate]:
    """Rows' means over `processes` (1/(1/m + 1/n) for a difference), spread `variance` on `df`; none: (-inf, inf)."""
    mean, variance, df, processes, sd = np.broadcast_arrays(*(np.atleast_1d(np.asarray(a, dtype=float)) for a in (
        mean, variance, df, processes, sd)))
    known = (variance > 0) & (df > 0)
    se = np.sqrt(np.where(known, variance, 1.0) / processes)
    half = stdtrit(np.where(known, df, 1.0), 0.5 + LEVEL / 2) * se  # t.ppf and t.sf through scipy.special
    p = 2 * stdtr(np.where(known, df, 1.0), -np.abs(mean) / se)
    return [Estimate(m, m - h, m + h, p_, s, d, math.sqrt(v)) if k else Estimate(m, -math.inf, math.inf, 1.0, s, d)
            for m, h, p_, s, d, v, k in zip(mean.tolist(), half.tolist(), p.tolist(), sd.tolist(), df.tolist(),
                                             variance.tolist(), known.tolist(), strict=True)]


def _posterior(prior: Prior, variance, df):
    """Moderated variance and its degrees of freedom."""
    variance, df = np.asarray(variance, dtype=float), np.asarray(df, dtype=float)
    if math.isinf(prior.df):
        return np.full(np.broadcast(variance, df).shape, prior.variance), np.full_like(df, math.inf)
    total = prior.df + df
    return np.where(total > 0, (prior.df * prior.variance + df * variance) / np.where(total > 0, total, 1), 0.0), total


def estimate(values: Sequence[float], prior: Prior = NO_PRIOR) -> Estimate:
    """One row's mean by Student's t on the moderated spread; no spread known: (-inf, inf), p = 1."""
    x = np.asarray(values, dtype=float)
    sd = float(x.std(ddof=1)) if x.size > 1 else 0.0
    variance, df = _posterior(prior, sd ** 2, x.size - 1)
    return _intervals(float(x.mean()), variance, df, x.size, sd)[0]


def pooled(rows: Sequence[Sequence[float]], fitted: Sequence[bool] | None = None) -> list[Estimate]:
    """A job's rows, one value per shared process: the per-process offset common to the `fitted` rows (default
    all) split off on processes - 1 degrees of freedom, the rest pooled; intervals rest on both (Satterthwaite).
    Rows not fitted (an A/A twin) are judged without narrowing theirs."""
    x = np.asarray(rows, dtype=float)
    fit = np.ones(len(x), dtype=bool) if fitted is None else np.asarray(fitted, dtype=bool)
    if x.ndim != 2 or fit.sum() < 2 or x.shape[1] < 2:
        return [estimate(r) for r in rows]
    k = x.shape[1]
    total, df = _split(x - x.mean(axis=1, keepdims=True), fit, k - 1)
    return _intervals(x.mean(axis=1), total, df, k, x.std(axis=1, ddof=1))


def in_groups(estimate: Callable[[list], list[Estimate]], rows: Sequence, groups: Sequence[Hashable]) -> list[Estimate]:
    """`estimate` (pooled, or two_sample over pairs) within each group of rows apart, in the rows' order: rows of
    another kind of spread (a variant compiling in every call) would widen or narrow the others' intervals."""
    found: list[Estimate | None] = [None] * len(rows)
    for group in dict.fromkeys(groups):
        at = [i for i, g in enumerate(groups) if g == group]
        for i, e in zip(at, estimate([rows[i] for i in at]), strict=True):
            found[i] = e
    return found


def pooled_apart(rows: Sequence[Sequence[float]]) -> list[Estimate]:
    """Rows no process offset moves alike (step shares): own spreads moderated, nothing split off."""
    x = np.asarray(rows, dtype=float)
    if x.ndim != 2 or len(x) < 2 or x.shape[1] < 2:
        return [estimate(r) for r in rows]
    prior = fit_prior(list(x.var(axis=1, ddof=1)), x.shape[1] - 1)
    return [estimate(r, prior) for r in x]


def _moderated(residual: np.ndarray, residual_df: np.ndarray, fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Residual variances and df, moderated by the `fit` rows' prior."""
    return _posterior(fit_prior(residual[fit], residual_df[fit]), residual, residual_df)


def _shares(centred: np.ndarray, fit: np.ndarray, dof: float) -> tuple[np.ndarray, np.ndarray]:
    """Each row's share s of the offset common to the `fit` rows, by inverse moderated spread v about their median
    (else a noisy row's noise enters the others' residuals), none over half; and each row's expected residual per
    df over its variance, 1 - 2s + sum(s^2 v) / v (unfit rows: 0 and 1)."""
    n = int(fit.sum())
    residual_df = np.where(fit, dof * (n - 1) / n, dof)
    spread, _ = _moderated(((centred - np.median(centred[fit], axis=0)) ** 2).sum(axis=1) / residual_df,
                           residual_df, fit)
    if not (spread[fit] > 0).all():  # rows that agree exactly: no spread to weigh by
        return np.where(fit, 1.0 / n, 0.0), np.where(fit, 1 - 1.0 / n, 1.0)
    spread = np.where(fit, spread, 1.0)  # an unfit row weighs nothing, whatever its spread
    weight = np.where(fit, 1 / spread, 0.0)
    weight = np.minimum(weight, weight.sum() - weight)
    share = weight / weight.sum()
    return share, np.where(fit, 1 - 2 * share + share ** 2 @ spread / spread, 1.0)


def components(centred: np.ndarray, fit: np.ndarray, dof: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Centred rows (`dof` each) split: the `fit` rows' common offset (their weighted mean, `_shares`), the rows'
    shares in it, residual variances and their df."""
    share, scale = _shares(centred, fit, dof)
    common = share @ centred
    return common, share, ((centred - common) ** 2).sum(axis=1) / (dof * scale), dof * (1 - share)


def shared_variance(common: np.ndarray, share: np.ndarray, residual: np.ndarray, dof: float) -> float:
    """The shared offset's variance beyond what the rows' `residual`, at their `share`, put in it; at least 0."""
    return max(0.0, float((common ** 2).sum() / dof - share ** 2 @ residual))


def _split(centred: np.ndarray, fit: np.ndarray, dof: float) -> tuple[np.ndarray, np.ndarray]:
    """Each row's variance between processes and degrees of freedom: the part common to the `fit` rows
    plus its moderated residual; a row the split would leave on fewer degrees of freedom keeps its own."""
    common, share, residual, residual_df = components(centred, fit, dof)
    own, own_df = _moderated(residual, residual_df, fit)
    shared = shared_variance(common, share, own, dof)
    total = own + shared
    df = np.where(total > 0, total ** 2 / np.maximum(own ** 2 / own_df + shared ** 2 / dof, 1e-300), 0.0)
    fewer = fit & (df < dof * (1 - 1e-9))  # not where rounding alone puts a row's df a hair below its own
    return np.where(fewer, (centred ** 2).sum(axis=1) / dof, total), np.where(fewer, dof, df)


def two_sample(current: Sequence[Sequence[float]], baseline: Sequence[Sequence[float]]) -> list[Estimate]:
    """Rows of two separate runs, unpaired: difference of means, Student's t on sqrt(1/m + 1/n) of the spread,
    rows sharing processes split the common offset off as `pooled` does; one process a side: no interval."""
    rows = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) for a, b in zip(current, baseline, strict=True)]
    centred = [np.concatenate([a - a.mean(), b - b.mean()]) for a, b in rows]  # each run about its own mean
    dof = np.array([a.size + b.size - 2 for a, b in rows], dtype=float)
    own = np.array([c @ c / d if d > 0 else 0.0 for c, d in zip(centred, dof, strict=True)])
    if len(rows) > 1 and len({(a.size, b.size) for a, b in rows}) == 1 and dof[0] > 0:
        total, df = _split(np.array(centred), np.ones(len(rows), dtype=bool), dof[0])
    else:
        total, df = own, dof
    return _intervals([a.mean() - b.mean() for a, b in rows], total, df,
                      [1 / (1 / a.size + 1 / b.size) for a, b in rows], np.sqrt(own))
