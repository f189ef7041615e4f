"""Steps in a series of measured ratios over ordered releases: which release changed a cost.

Pairwise tests multiply false alarms, so per number of steps the exact best piecewise-constant fit is found
(each release weighted by its interval), and the fit kept has the most steps that each hold at 95% after Bonferroni
over positions and `series`. Errors are widened by the fit's Birge ratio, so offsets no interval holds read partly
as noise, and a widened fit is tested on the few degrees of freedom that ratio rests on
(docs/decisions.md#an-offset-between-releases-in-the-null-histories).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from ...harness.stats import Z_95, log_standard_error, satterthwaite


@dataclass(frozen=True)
class Step:
    """A change between neighbouring releases (level after over before); `also_between`: the neighbouring pairs it
    cannot be told from."""

    before: str
    after: str
    ratio: float
    low: float
    high: float
    also_between: tuple[tuple[str, str], ...] = ()


class Parts(NamedTuple):
    """Per release: the spread between jobs' share of its variance, its jobs' df, the spread's."""

    spread_share: np.ndarray
    jobs_df: np.ndarray
    spread_df: np.ndarray


@dataclass(frozen=True)
class Segment:
    """Releases `first`..`last` (labels) sharing one level: their weighted geometric mean, 95% interval."""

    first: str
    last: str
    level: float
    low: float
    high: float


@dataclass(frozen=True)
class Fit:
    """Steps and segments in release order; `ruled_out`: the relative change (0.04: 4%) no further step exceeds;
    `alone`, `set_apart`: single-job releases split off, or kept with their neighbours."""

    steps: tuple[Step, ...]
    segments: tuple[Segment, ...]
    ruled_out: float
    alone: tuple[str, ...] = ()
    set_apart: tuple[str, ...] = ()


class _WeightedLevel:
    """A segment's cost: the log ratios' weighted squared error about their weighted mean (columns: log ratio,
    weight 1/se^2). Every segment's is computed at once, as simulated histories fit thousands of series; each as
    its own slice's sum would be (the other releases add exact zeros)."""

    def fit(self, signal: np.ndarray) -> _WeightedLevel:
        self.y, self.w = signal[:, 0], signal[:, 1]
        n = self.y.size
        starts, ends = np.triu_indices(n + 1, 1)
        inside = (np.arange(n) >= starts[:, None]) & (np.arange(n) < ends[:, None])
        mean = np.where(inside, self.w * self.y, 0.0).sum(axis=1) / np.where(inside, self.w, 0.0).sum(axis=1)
        errors = np.where(inside, self.w * (self.y - mean[:, None]) ** 2, 0.0).sum(axis=1)
        self.errors = dict(zip(zip(starts.tolist(), ends.tolist(), strict=True), errors.tolist(), strict=True))
        return self

    def error(self, start: int, end: int) -> float:
        return self.errors[start, end]


def _level(y: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """A segment's weighted mean log ratio and its standard error (Birge-widened, never narrowed)."""
    w = 1 / se ** 2
    mean = float(np.sum(w * y) / np.sum(w))
    birge = np.sqrt(np.sum(w * (y - mean) ** 2) / (y.size - 1)) if y.size > 1 else 1.0
    return mean, float(max(1.0, birge) / np.sqrt(np.sum(w)))


def _difference(y: np.ndarray, se: np.ndarray, start: int, split: int, end: int) -> tuple[float, float]:
    """The log level of releases split..end minus that of start..split, and its standard error."""
    (a, a_se), (b, b_se) = _level(y[start:split], se[start:split]), _level(y[split:end], se[split:end])
    return b - a, float(np.hypot(a_se, b_se))


CHI2_1_95 = 3.841  # 95% quantile of chi-square with one degree of freedom: a step's location set


def _locations(y: np.ndarray, se: np.ndarray, start: int, split: int, end: int) -> list[int]:
    """Every place in start..end the step could be (a 95% confidence set by chi-square(1) on the two-level fit)."""
    cost = _WeightedLevel().fit(np.column_stack([y, 1 / se ** 2]))

    def split_at(s: int) -> float:
        return cost.error(start, s) + cost.error(s, end)

    best = split_at(split)
    return [s for s in range(start + 1, end) if s != split and split_at(s) - best <= CHI2_1_95]


def _best_fits(cost: _WeightedLevel, n: int, most: int) -> dict[int, list[int]]:
    """Segment boundaries [0, ..., n] of the exact best fit with each of 1..`most` steps, by dynamic programming
    over the last step's place (the first of equal fits kept); one search serves every number of steps."""
    best = {end: (cost.error(0, end), [0]) for end in range(1, n + 1)}  # releases 0..end-1: error, its starts
    found = {}
    for k in range(1, most + 1):
        best = {end: min(((best[last][0] + cost.error(last, end), [*best[last][1], last])
                          for last in range(k, end)), key=lambda fit: fit[0]) for end in range(k + 1, n + 1)}
        found[k] = [*best[n][1], n]
    return found


@cache  # a history fits thousands of series of a few lengths
def expected_scatter(n: int, k: int, draws: int = 4000, seed: int = 0) -> float:
    """The weighted squared error `n` releases leave about their best `k`-step fit where nothing changed (mean over
    `draws`): below n - k - 1, as the search fits the noise (docs/decisions.md#the-fits-scale-counts-its-search)."""
    if not 0 <= k < n:
        raise ValueError(f"{k} steps cannot split {n} releases")
    if k == 0:
        return n - 1.0
    y = np.random.default_rng(seed).standard_normal((draws, n))
    sums, squares = (np.column_stack([np.zeros(draws), np.cumsum(v, axis=1)]) for v in (y, y ** 2))

    def error(start: int, end: int) -> np.ndarray:  # releases start..end-1 about their mean, per draw
        return squares[:, end] - squares[:, start] - (sums[:, end] - sums[:, start]) ** 2 / (end - start)

    best = {end: error(0, end) for end in range(1, n + 1)}  # the best fit of releases 0..end-1, no step yet
    for steps in range(1, k + 1):
        best = {end: np.min([best[start] + error(start, end) for start in range(steps, end)], axis=0)
                for end in range(steps + 1, n + 1)}
    return float(best[n].mean())


def _scale(cost: _WeightedLevel, bounds: list[int]) -> float:
    """A fit's Birge ratio against `expected_scatter`, at least 1."""
    if len(bounds) - 1 == cost.y.size:  # a release to each level
        return 1.0
    scatter = sum(cost.error(a, b) for a, b in zip(bounds, bounds[1:], strict=False))
    return float(np.sqrt(max(1.0, scatter / expected_scatter(cost.y.size, len(bounds) - 2))))


@lru_cache(maxsize=1 << 16)  # a history's fits ask for quantiles thousands of times; scipy takes ~0.1 ms each
def upper_quantile(p: float, df: float) -> float:
    """The upper `p` quantile of Student's t on `df` (the normal's where infinite)."""
    return float(norm.isf(p) if np.isinf(df) else student_t.isf(p, df))


def fit_steps(labels: Sequence[str], ratios: Sequence[float], lows: Sequence[float],
              highs: Sequence[float], max_steps: int = 3, series: int = 1,
              single: Sequence[bool] | None = None, df: float | Sequence[float] = np.inf,
              parts: Parts | None = None) -> Fit:
    """The steps in `ratios` (release order, 95% intervals `lows`..`highs`), one of `series` in a report. A fit
    splitting a `single`-job release off alone gives way to one that does not
    (docs/decisions.md#single-job-releases); each interval is read on its own `df`, each step tested and sized on
    its own where its `parts` are known (`_pooled_df`), else on the fewest."""
    y = np.log(np.asarray(ratios, dtype=float))
    dfs = np.broadcast_to(np.asarray(df, dtype=float), y.shape)
    quantiles = np.array([upper_quantile(0.025, d) for d in dfs])
    se = np.maximum(log_standard_error(lows, highs) * Z_95 / quantiles, 1e-6)  # each built on its own t(df)
    fewest = float(dfs.min()) if dfs.size else np.inf
    n = y.size
    if n == 0:
        raise ValueError("no releases to fit")

    def df_of(start: int, split: int, end: int) -> float:
        return fewest if parts is None else _pooled_df(se, parts, start, split, end)

    signal = np.column_stack([y, 1 / se ** 2])
    cost = _WeightedLevel().fit(signal)
    told_apart = [[0, n]]  # the fits, by steps, whose every step is told apart
    for k, candidate in _best_fits(cost, n, min(max_steps, n - 1)).items():
        scale = _scale(cost, candidate)
        places = [candidate[i:i + 3] for i in range(k)]
        if all(abs(d) > s * upper_quantile(0.025 / (max(n - 1, 1) * series), _tested_on(df_of(*at), scale, n, k))
               for at, (d, s) in zip(places, (_difference(y, se * scale, *at) for at in places), strict=True)):
            told_apart.append(candidate)  # Bonferroni over n - 1 places and the series
    alone = [tuple(labels[i] for i in _alone(bounds, single)) for bounds in told_apart]
    kept = next((b for b, a in zip(reversed(told_apart), reversed(alone), strict=True) if not a), [0, n])
    chosen, apart = (kept, {"set_apart": alone[-1]}) if alone[-1] and len(kept) > 2 else (told_apart[-1],
                                                                                          {"alone": alone[-1]})
    scale = _scale(cost, chosen)
    return replace(_described(list(labels), y, se * scale, chosen,
                              lambda *at: _tested_on(df_of(*at), scale, n, len(chosen) - 2)), **apart)


def _pooled_df(se: np.ndarray, parts: Parts, start: int, split: int, end: int) -> float:
    """Satterthwaite's df of start..split's weighted mean less split..end's (split == end: the mean alone), the
    series' one spread counted once."""
    share, jobs_df, spread_df = (np.asarray(p, dtype=float)[start:end] for p in parts)
    w = 1 / se[start:end] ** 2
    first = np.arange(start, end) < split
    var = (w / np.where(first, w[first].sum(), w[~first].sum() or 1.0) * se[start:end]) ** 2
    shared = float(np.sum(var * share))
    return satterthwaite(np.append(var * (1 - share), shared),
                         np.append(jobs_df, spread_df[share > 0].min() if shared > 0 else np.inf))


def _tested_on(df: float, scale: float, n: int, steps: int) -> float:
    """The df a fit's steps are tested and sized on: the intervals' own where they hold the fit's scatter; where its
    Birge ratio widens them, at most the n - steps - 1 that ratio was estimated from (Knapp and Hartung's rule)."""
    return df if scale <= 1 else min(df, n - steps - 1)


def resting_alone(fit: Fit, step: Step) -> tuple[str, ...]:
    """The releases beside `step` that `fit` leaves alone and one job timed: the step rests on that job and is not
    named."""
    return tuple(release for release in (step.before, step.after) if release in fit.alone)


def _alone(bounds: list[int], single: Sequence[bool] | None) -> list[int]:
    """The releases (indices) that `bounds` puts in a segment of their own and one job timed."""
    return [start for start, end in zip(bounds, bounds[1:], strict=False)
            if end - start == 1 and single is not None and single[start]]


def _exp(log_value: float, log_se: float, t: float) -> tuple[float, float, float]:
    """A log estimate and its standard error as (value, 95% low, high) on the ratio scale, `t` its quantile."""
    return tuple(float(np.exp(log_value + k * t * log_se)) for k in (0, -1, 1))


def _described(labels: list[str], y: np.ndarray, se: np.ndarray, bounds: list[int],
               df_of: Callable[[int, int, int], float]) -> Fit:
    steps = []
    for start, split, end in zip(bounds, bounds[1:], bounds[2:], strict=False):
        d, d_se = _difference(y, se, start, split, end)
        steps.append(Step(labels[split - 1], labels[split], *_exp(d, d_se, upper_quantile(0.025, df_of(start, split,
                                                                                                        end))),
                          tuple((labels[s - 1], labels[s]) for s in _locations(y, se, start, split, end))))
    segments = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        level, level_se = _level(y[start:end], se[start:end])
        segments.append(Segment(labels[start], labels[end - 1],
                                *_exp(level, level_se, upper_quantile(0.025, df_of(start, end, end)))))
    inner = [abs(d) + upper_quantile(0.025, df_of(start, split, end)) * s
             for start, end in zip(bounds, bounds[1:], strict=False) for split in range(start + 1, end)
             for d, s in [_difference(y, se, start, split, end)]]
    return Fit(tuple(steps), tuple(segments), float(np.expm1(max(inner))) if inner else 0.0)
