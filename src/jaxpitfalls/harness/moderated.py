"""Student's t over fresh processes, with the spread between processes pooled across the rows of one job: the one
estimator of every interval a job of several processes reports (a study's comparisons, hence a release's level
in the history and the separate-run comparison; the lockstep rows: report/comparison/process_t.py).

A fresh process shifts all its rounds alike (another core, another memory layout), so the processes are the
independent units: each gives one value per row (its median log-ratio, its median difference), and the row's
estimate is their mean. With 2 or 3 processes a row's own spread rests on 1 or 2 degrees of freedom (t's 97.5%
quantile 12.7 and 4.3); the rows of one job share their processes and machine, so their spreads are pooled as in
limma's moderated t (Smyth 2004): a prior spread s0^2 on d0 degrees of freedom fitted to all the rows' spreads,
each row's posterior (d0 s0^2 + d s^2) / (d0 + d) on d0 + d degrees of freedom. Rows that spread alike give d0
large (the pooled spread); rows that spread differently give d0 small (each row its own). The prior is itself
fitted on those rows, so it counts half what the fit says, and at most half the other rows' degrees of freedom
((rows - 1) d / 2): on simulated jobs of 3-8 rows whose spreads differ row to row (tests/test_moderated.py) that
keeps coverage at 93-97% at 2, 3 and 5 processes, where limma's fit taken whole fell to 88-93% on 3 rows and the
cap alone to 92%.

The two-level bootstrap (processes, then rounds) this replaced covered 71% at 2 processes and 79% at 3 where the
processes' ratios differ by 2% (issue 70's simulation of harness.stats.paired_comparison;
docs/decisions.md#pooled-spread-between-processes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import digamma, polygamma
from scipy.stats import t

LEVEL = 0.95


@dataclass(frozen=True)
class Prior:
    """The spread between processes the rows of a job share: `variance` (s0^2) worth `df` (d0) degrees of freedom;
    df 0: none (each row its own spread), inf: every row the pooled one."""

    variance: float = 0.0
    df: float = 0.0


NO_PRIOR = Prior()


def _trigamma_inverse(x: float) -> float:
    return float(brentq(lambda y: polygamma(1, y) - x, 1e-8, 1e8))


def fit_prior(variances: Sequence[float], df: int) -> Prior:
    """The prior spread of rows whose own spreads are `variances`, each on `df` degrees of freedom (limma's
    fitFDist by moments of log s^2), counted at half its fitted degrees of freedom and at most half the other
    rows' (the module's docstring). Rows that agree to the last bit (variance 0) say nothing of the spread and are
    left out; fewer than two rows left: no prior."""
    s2 = np.asarray([v for v in variances if v > 0 and math.isfinite(v)], dtype=float)
    if s2.size < 2 or df < 1:
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


def estimate(values: Sequence[float], prior: Prior = NO_PRIOR) -> Estimate:
    """One row: the processes' `values` (one each), their mean and Student's t on the moderated spread. One
    process without a prior, or processes that agree to the last bit without one: nothing says how far a fresh
    process moves the value, so no interval (-inf, inf) and p = 1."""
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    own_df = x.size - 1
    sd = float(x.std(ddof=1)) if own_df else 0.0
    df = own_df + prior.df
    variance = prior.variance if math.isinf(prior.df) else \
        (prior.df * prior.variance + own_df * sd ** 2) / df if df else 0.0
    if variance <= 0 or not df:
        return Estimate(mean, -math.inf, math.inf, 1.0, sd, float(df))
    se = math.sqrt(variance / x.size)
    half = float(t.ppf(0.5 + LEVEL / 2, df)) * se
    return Estimate(mean, mean - half, mean + half, float(2 * t.sf(abs(mean) / se, df)), sd, float(df))


def pooled(rows: Sequence[Sequence[float]]) -> list[Estimate]:
    """Every row of a job (one value per process each, the same processes), on the prior fitted to all of them."""
    prior = fit_prior([np.var(r, ddof=1) for r in rows if len(r) > 1], min((len(r) for r in rows), default=1) - 1)
    return [estimate(r, prior) for r in rows]
