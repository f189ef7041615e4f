"""Student's t over fresh processes, with the spread between processes pooled across the rows of one job: the
estimator of the comparisons a job of several processes reports (a study's claims, hence a release's level in the
history) and of the rows sides timed in lockstep report (across_runs/comparison/lockstep.py), and, unpaired
(`two_sample`), of a comparison of two separate runs (across_runs/comparison/compare.py), and of a job's medians, step
shares, relative IQRs and compile-time ratios (report/tables/over_processes.py; a call's step shares share no
offset: `pooled_apart`).

A fresh process shifts all its rounds alike (another core, another memory layout), so the processes are the
independent units: each gives one value per row (its median log-ratio, its median difference), and the row's
estimate is their mean. With 2 or 3 processes a row's own spread rests on 1 or 2 degrees of freedom (t's 97.5%
quantile 12.7 and 4.3); the rows of one job share their processes and machine, so their spreads are pooled as in
limma's moderated t (Smyth 2004): a prior spread s0^2 on d0 degrees of freedom fitted to all the rows' spreads,
each row's posterior (d0 s0^2 + d s^2) / (d0 + d) on d0 + d degrees of freedom. Rows that spread alike give d0
large (the pooled spread); rows that spread differently give d0 small (each row its own). The prior is itself
fitted on those rows, so it counts half what the fit says, and at most half the other rows' degrees of freedom
((rows - 1) d / 2). A process's offset that every row shares (the floor they are compared with ran slow in it)
is split off first and known on processes - 1 degrees of freedom however many rows share it (`pooled`); a row
that split would leave on fewer degrees of freedom than its own spread keeps its own.

On simulated jobs of 3-8 rows whose spreads differ row to row, with and without such a shared offset
(tests/test_moderated.py), rows are covered in 95-97% at 3 and 5 processes and 98-99% at 2 (there the shared part
rests on one degree of freedom: conservative); pooling the rows' spreads without splitting the shared part off
covered 93-95% but let rows that share a process fail together (with every row at the gate's threshold, its
correction named rows in 4 of 40 simulated tables, where it names them in 2: tests/test_gate_power.py).

The two-level bootstrap (processes, then rounds) this replaced covered 71% at 2 processes and 79% at 3 where the
processes' ratios differ by 2% (a simulation of harness.stats.paired_comparison:
docs/decisions.md#pooled-spread-between-processes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import digamma, polygamma, stdtr, stdtrit

LEVEL = 0.95


@dataclass(frozen=True)
class Prior:
    """The spread between processes the rows of a job share: `variance` (s0^2) worth `df` (d0) degrees of freedom;
    df 0: none (each row its own spread), inf: every row the pooled one."""

    variance: float = 0.0
    df: float = 0.0


NO_PRIOR = Prior()


def _trigamma_inverse(x: float) -> float:
    """y with trigamma(y) = x; limma's limits outside where a root is bracketed (trigamma(y) ~ 1/y for large y,
    1/y^2 for small)."""
    if x < 1e-6:
        return 1 / x
    if x > 1e7:
        return 1 / math.sqrt(x)
    return float(brentq(lambda y: polygamma(1, y) - x, 1e-8, 1e8))


def fit_prior(variances: Sequence[float], df: float) -> Prior:
    """The prior spread of rows whose own spreads are `variances`, each on `df` degrees of freedom (limma's
    fitFDist by moments of log s^2), counted at half its fitted degrees of freedom and at most half the other
    rows' (the module's docstring). Rows that agree to the last bit (variance 0) say nothing of the spread and are
    left out; fewer than two rows left: no prior."""
    s2 = np.asarray([v for v in variances if v > 0 and math.isfinite(v)], dtype=float)
    if s2.size < 2 or df <= 0:
        return NO_PRIOR
    e = np.log(s2) - digamma(df / 2) + math.log(df / 2)
    excess = float(e.var(ddof=1) - polygamma(1, df / 2))  # the spread of log s^2 beyond what sampling gives
    d0 = 2 * _trigamma_inverse(excess) if excess > 0 else math.inf
    s0 = math.exp(float(e.mean()) + (digamma(d0 / 2) - math.log(d0 / 2) if excess > 0 else 0.0))
    return Prior(s0, min(d0, (s2.size - 1) * df) / 2)


@dataclass(frozen=True)
class Estimate:
    """A row's mean over processes with its 95% interval, the p-value of "no change" (mean 0), the row's own
    spread `sd` between processes and the degrees of freedom `df` its interval rests on."""

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


def _interval(mean: float, variance: float, df: float, processes: float, sd: float) -> Estimate:
    """A mean over `processes` with the spread between them `variance` known on `df` degrees of freedom (for a
    difference of two means over m and n processes, `processes` is 1 / (1/m + 1/n))."""
    if not variance > 0 or not df > 0:
        return Estimate(mean, -math.inf, math.inf, 1.0, sd, float(df))
    se = math.sqrt(variance / processes)
    half = float(stdtrit(df, 0.5 + LEVEL / 2)) * se  # t.ppf and t.sf through scipy.special: the same values
    return Estimate(mean, mean - half, mean + half, float(2 * stdtr(df, -abs(mean) / se)), sd, float(df),
                    math.sqrt(variance))


def _posterior(prior: Prior, variance, df):
    """The moderated variance of rows whose own is `variance` on `df` degrees of freedom (numbers or arrays of
    them), and its degrees of freedom: 0 where neither the prior nor the row has any."""
    variance, df = np.asarray(variance, dtype=float), np.asarray(df, dtype=float)
    if math.isinf(prior.df):
        return np.full(np.broadcast(variance, df).shape, prior.variance), np.full_like(df, math.inf)
    total = prior.df + df
    return np.where(total > 0, (prior.df * prior.variance + df * variance) / np.where(total > 0, total, 1), 0.0), total


def estimate(values: Sequence[float], prior: Prior = NO_PRIOR) -> Estimate:
    """One row: the processes' `values` (one each), their mean and Student's t on the moderated spread. One
    process without a prior, or processes that agree to the last bit without one: nothing says how far a fresh
    process moves the value, so no interval (-inf, inf) and p = 1."""
    x = np.asarray(values, dtype=float)
    sd = float(x.std(ddof=1)) if x.size > 1 else 0.0
    variance, df = _posterior(prior, sd ** 2, x.size - 1)
    return _interval(float(x.mean()), float(variance), float(df), x.size, sd)


def pooled(rows: Sequence[Sequence[float]], fitted: Sequence[bool] | None = None) -> list[Estimate]:
    """Every row of a job: one value per process each, the same processes. A process's offset common to the rows
    (the floor every row is compared with ran slow in it) moves every row alike: it is split off as the job's
    common spread, known on processes - 1 degrees of freedom however many rows share it; what is left of each
    row's spread is pooled across the rows (fit_prior); a row's interval rests on the two added, its degrees of
    freedom by Satterthwaite's rule. Without a common part the rows pool fully; where it dominates they keep
    processes - 1. Only the `fitted` rows (all by default) inform the common part and the pool: a floor's A/A
    twin, which no process offset moves, is judged by them without narrowing theirs."""
    x = np.asarray(rows, dtype=float)
    fit = np.ones(len(x), dtype=bool) if fitted is None else np.asarray(fitted, dtype=bool)
    if x.ndim != 2 or fit.sum() < 2 or x.shape[1] < 2:
        return [estimate(r) for r in rows]
    k = x.shape[1]
    total, df = _split(x - x.mean(axis=1, keepdims=True), fit, k - 1)
    return [_interval(float(x[i].mean()), float(total[i]), float(df[i]), k, float(x[i].std(ddof=1)))
            for i in range(len(x))]


def pooled_apart(rows: Sequence[Sequence[float]]) -> list[Estimate]:
    """Rows of a job that no process offset moves alike (the shares of one call's steps: what one step gains in
    a process another loses): each row's own spread between processes moderated across the rows (fit_prior), no
    common part split off."""
    x = np.asarray(rows, dtype=float)
    if x.ndim != 2 or len(x) < 2 or x.shape[1] < 2:
        return [estimate(r) for r in rows]
    prior = fit_prior(list(x.var(axis=1, ddof=1)), x.shape[1] - 1)
    return [estimate(r, prior) for r in x]


def components(centred: np.ndarray, fit: np.ndarray, dof: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A job's rows' values centred on their group's mean (`dof` per row: the processes less the groups), split
    into the offset per process common to the `fit` rows (two at least), each row's own residual variance about
    it, and that residual's degrees of freedom (a fitted row's residual also left the common part)."""
    n = int(fit.sum())
    common = centred[fit].mean(axis=0)
    residual_df = np.where(fit, dof * (n - 1) / n, dof)
    return common, ((centred - common) ** 2).sum(axis=1) / residual_df, residual_df


def shared_variance(common: np.ndarray, residual: np.ndarray, rows: int, dof: float) -> float:
    """The variance of the offset the rows share, beyond what the rows' own residuals (mean `residual`, over
    `rows` rows) put into their common mean; never below 0."""
    return max(0.0, float((common ** 2).sum() / dof - float(np.mean(residual)) / rows))


def _split(centred: np.ndarray, fit: np.ndarray, dof: float) -> tuple[np.ndarray, np.ndarray]:
    """Each row's variance between processes and its degrees of freedom, from its values centred on their
    group's mean (`dof` per row): the part common to the `fit` rows on `dof` degrees of freedom, plus each row's
    own residual moderated across them (fit_prior), their degrees of freedom by Satterthwaite's rule. A row the
    split would leave on fewer degrees of freedom than its own spread has (two rows at 2 processes: 0.75 against
    1) keeps its own spread, which holds the common part too, on its own `dof` (a row not fitted never does: its
    posterior and the common part each rest on at least `dof`)."""
    common, residual, residual_df = components(centred, fit, dof)
    prior = fit_prior(list(residual[fit]), float(residual_df[fit][0]))
    own, own_df = _posterior(prior, residual, residual_df)
    shared = shared_variance(common, own[fit], int(fit.sum()), dof)
    total = own + shared
    df = np.where(total > 0, total ** 2 / np.maximum(own ** 2 / own_df + shared ** 2 / dof, 1e-300), 0.0)
    fewer = fit & (df < dof * (1 - 1e-9))  # not where rounding alone puts a row's df a hair below its own
    return np.where(fewer, (centred ** 2).sum(axis=1) / dof, total), np.where(fewer, dof, df)


def two_sample(current: Sequence[Sequence[float]], baseline: Sequence[Sequence[float]]) -> list[Estimate]:
    """Rows compared across two separate runs: each row's current processes' values against its baseline's, no
    process paired with another. A row's estimate is the difference of the two means, its interval Student's t
    on sqrt(1/m + 1/n) of the spread between processes. A slow process slows every row of its run alike, so
    where the rows share their processes (m and n the same for all) that common offset is split off as `pooled`
    does, on m + n - 2 degrees of freedom however many rows share it, and the rest is pooled across the rows;
    otherwise each row rests on its own two runs' spread. One process a side: no interval."""
    rows = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) for a, b in zip(current, baseline, strict=True)]
    centred = [np.concatenate([a - a.mean(), b - b.mean()]) for a, b in rows]  # each run about its own mean
    dof = np.array([a.size + b.size - 2 for a, b in rows], dtype=float)
    own = np.array([c @ c / d if d > 0 else 0.0 for c, d in zip(centred, dof, strict=True)])
    if len(rows) > 1 and len({(a.size, b.size) for a, b in rows}) == 1 and dof[0] > 0:
        total, df = _split(np.array(centred), np.ones(len(rows), dtype=bool), dof[0])
    else:
        total, df = own, dof
    return [_interval(float(a.mean() - b.mean()), float(v), float(d), 1 / (1 / a.size + 1 / b.size),
                      math.sqrt(float(o))) for (a, b), v, d, o in zip(rows, total, df, own, strict=True)]
