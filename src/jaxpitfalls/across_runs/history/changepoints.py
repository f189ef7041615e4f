"""Steps in a series of measured ratios over ordered releases: which release changed a cost.

Each release's ratio comes with its own 95% interval (its jobs' Student's t over their fresh processes, with the
spread between its jobs where it was timed in several: release_levels.py). Comparing neighbours
pairwise multiplies false alarms with every release added. Here, for each number of steps, the exact best
piecewise-constant fit (ruptures' dynamic programming, `Dynp`, with a cost that weights each release by its own
interval: weighted squared error of the log ratio about its segment's level); the fit kept is the one with the
most steps whose every step is told apart at 95% after a Bonferroni correction over the positions searched, in
every series of the report (`series`: a history fits one series per variant, mode and configuration, and a false
alarm in any of them is one in the report). As asv's step detection estimates its noise from the series itself,
each fit's errors are widened by its Birge ratio (`_scale`: how far its releases scatter about their segments'
levels beyond their own intervals, against what the best fit with as many steps leaves where nothing changed,
the positions its search chose counted), so that what a release's environment puts on all its jobs alike, which
no interval holds, reads in part as noise. In part: the ratio rests on the few releases a fit leaves free and is
taken as known, so a large offset can still name a step
(docs/decisions.md#an-offset-between-releases-in-the-null-histories).
A segment's level is the weighted mean of its releases, its standard error widened again wherever they scatter
beyond that (the Birge ratio, as `stats.power_law_exponent` does), and each step's size gets a 95% interval
(Student's t on the degrees of freedom the releases' spread rests on, normal where it is known). Where the
fit finds no step, it says how large a step the measurements rule out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import ruptures
from ruptures.base import BaseCost
from scipy.stats import norm
from scipy.stats import t as student_t

from ...harness.stats import Z_95, log_standard_error


@dataclass(frozen=True)
class Step:
    """A change between two neighbouring releases: the level after it over the level before it; `also_between`:
    the other neighbouring pairs the measurements cannot tell it from (a release measured between the two
    levels, say), as (before, after)."""

    before: str
    after: str
    ratio: float
    low: float
    high: float
    also_between: tuple[tuple[str, str], ...] = ()


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
    """The steps found (in release order), the segments between them, and `ruled_out`: the relative change
    (e.g. 0.04 for 4%) larger than which no further step fits inside any segment at 95%; `alone`: the releases
    this fit puts in a segment of their own that one job timed (`fit_steps`' `single`); `set_apart`: such
    releases of a fit with more steps, that this fit keeps with their neighbours."""

    steps: tuple[Step, ...]
    segments: tuple[Segment, ...]
    ruled_out: float
    alone: tuple[str, ...] = ()
    set_apart: tuple[str, ...] = ()


class _WeightedLevel(BaseCost):
    """ruptures' cost of one segment: weighted squared error of the log ratios about their weighted mean
    (column 0: log ratio, column 1: weight, one over its squared standard error)."""

    model = "weighted_level"
    min_size = 1

    def fit(self, signal: np.ndarray) -> _WeightedLevel:
        self.signal = signal  # ruptures reads its length
        self.y, self.w = signal[:, 0], signal[:, 1]
        return self

    def error(self, start: int, end: int) -> float:
        y, w = self.y[start:end], self.w[start:end]
        return float(np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2))


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
    """Every place in start..end the step could be, the found one's neighbours in fit: the two-level fit there
    within chi-square(1)'s 95% quantile of the best (a confidence set for where the level changed)."""
    cost = _WeightedLevel().fit(np.column_stack([y, 1 / se ** 2]))

    def split_at(s: int) -> float:
        return cost.error(start, s) + cost.error(s, end)

    best = split_at(split)
    return [s for s in range(start + 1, end) if s != split and split_at(s) - best <= CHI2_1_95]


def _bounds(n: int, k: int, signal: np.ndarray) -> list[int]:
    """Segment boundaries [0, ..., n] of the exact best fit with k steps."""
    return [0, *ruptures.Dynp(custom_cost=_WeightedLevel(), min_size=1, jump=1).fit(signal).predict(n_bkps=k)]


@cache  # a history fits thousands of series of a few lengths
def expected_scatter(n: int, k: int, draws: int = 4000, seed: int = 0) -> float:
    """The weighted squared error about their segments' levels that `n` releases leave to their best fit with
    `k` steps where nothing changed and every interval is exact (its mean over `draws` series of unit normal
    noise; the exact best fit by dynamic programming): what a fit's scatter is read against. Below the n - k - 1
    degrees of freedom it leaves, because the search put each step where it fits the noise best: 2.6 at one
    step of six releases, 1.1 at two (docs/decisions.md#the-fits-scale-counts-its-search). Equal weights: where
    one release is measured far better than its neighbours the search leaves less than this (the ratio up to
    ~1.1x too small), far worse more (up to ~1.5x too large); exact without a step (n - 1)."""
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
    """A fit's Birge ratio: the square root of its releases' weighted squared error about their segments' levels
    (`cost`, fitted to the series) over what the best fit with as many steps leaves where nothing changed
    (`expected_scatter`: 1 on average where the intervals are exact); never below 1 (intervals are never
    narrowed), 1 where a fit leaves no scatter to read."""
    if len(bounds) - 1 == cost.y.size:  # a release to each level
        return 1.0
    scatter = sum(cost.error(a, b) for a, b in zip(bounds, bounds[1:], strict=False))
    return float(np.sqrt(max(1.0, scatter / expected_scatter(cost.y.size, len(bounds) - 2))))


@cache  # a history's levels and fits ask for a few quantiles thousands of times; scipy takes ~0.1 ms each
def upper_quantile(p: float, df: float) -> float:
    """The upper `p` quantile of Student's t on `df` degrees of freedom (the normal's where they are infinite)."""
    return float(norm.isf(p) if np.isinf(df) else student_t.isf(p, df))


def fit_steps(labels: Sequence[str], ratios: Sequence[float], lows: Sequence[float],
              highs: Sequence[float], max_steps: int = 3, series: int = 1,
              single: Sequence[bool] | None = None, df: float | Sequence[float] = np.inf) -> Fit:
    """The steps in `ratios` (one per release, in release order, each with its 95% interval `lows`..`highs`),
    one of `series` fitted for one report. `single`: per release, whether one job timed it; where the fit with
    the most steps splits such a release off alone (one job's offset fits that as well as a step does), the fit
    with the most steps that splits off none is kept instead where one has a step (equinox's history: 0.11.8
    alone between 0.11.7 and 0.11.9 hid the 0.11.7 -> 0.11.8 step in one series of four;
    docs/decisions.md#single-job-releases). `df`: the degrees of freedom each release's interval was built on
    (release_levels: the jobs' scatter, infinite where their own intervals hold), one for all or one per release:
    each interval is read back to its standard error by its own t quantile, and every step is tested and sized on
    the fewest (a release read on another's quantile would be narrowed, and name false steps)."""
    y = np.log(np.asarray(ratios, dtype=float))
    dfs = np.broadcast_to(np.asarray(df, dtype=float), y.shape)
    quantiles = np.array([upper_quantile(0.025, d) for d in dfs])
    se = np.maximum(log_standard_error(lows, highs) * Z_95 / quantiles, 1e-6)  # each built on its own t(df)
    df = float(dfs.min()) if dfs.size else np.inf
    n = y.size
    if n == 0:
        raise ValueError("no releases to fit")
    z = upper_quantile(0.025 / (max(n - 1, 1) * series), df)  # Bonferroni: n - 1 places in each series
    signal = np.column_stack([y, 1 / se ** 2])
    cost = _WeightedLevel().fit(signal)
    told_apart = [[0, n]]  # the fits, by steps, whose every step is told apart
    for k in range(1, min(max_steps, n - 1) + 1):
        candidate = _bounds(n, k, signal)
        widened = se * _scale(cost, candidate)
        if all(abs(d) > z * s for d, s in (_difference(y, widened, *candidate[i:i + 3]) for i in range(k))):
            told_apart.append(candidate)
    alone = [tuple(labels[i] for i in _alone(bounds, single)) for bounds in told_apart]
    kept = next((b for b, a in zip(reversed(told_apart), reversed(alone), strict=True) if not a), [0, n])
    chosen, apart = (kept, {"set_apart": alone[-1]}) if alone[-1] and len(kept) > 2 else (told_apart[-1],
                                                                                          {"alone": alone[-1]})
    return replace(_described(list(labels), y, se * _scale(cost, chosen), chosen, df), **apart)


def resting_alone(fit: Fit, step: Step) -> tuple[str, ...]:
    """The releases on either side of `step` that `fit` puts in a segment of their own and one job timed: a step
    beside such a release rests on that job alone and is not named one (its offset looks the same)."""
    return tuple(release for release in (step.before, step.after) if release in fit.alone)


def _alone(bounds: list[int], single: Sequence[bool] | None) -> list[int]:
    """The releases (indices) that `bounds` puts in a segment of their own and one job timed."""
    return [start for start, end in zip(bounds, bounds[1:], strict=False)
            if end - start == 1 and single is not None and single[start]]


def _exp(log_value: float, log_se: float, t: float) -> tuple[float, float, float]:
    """A log estimate and its standard error as (value, 95% low, high) on the ratio scale, `t` its quantile."""
    return tuple(float(np.exp(log_value + k * t * log_se)) for k in (0, -1, 1))


def _described(labels: list[str], y: np.ndarray, se: np.ndarray, bounds: list[int], df: float) -> Fit:
    t = upper_quantile(0.025, df)
    steps = []
    for start, split, end in zip(bounds, bounds[1:], bounds[2:], strict=False):
        d, d_se = _difference(y, se, start, split, end)
        steps.append(Step(labels[split - 1], labels[split], *_exp(d, d_se, t),
                          tuple((labels[s - 1], labels[s]) for s in _locations(y, se, start, split, end))))
    segments = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        level, level_se = _level(y[start:end], se[start:end])
        segments.append(Segment(labels[start], labels[end - 1], *_exp(level, level_se, t)))
    inner = [abs(d) + t * s for start, end in zip(bounds, bounds[1:], strict=False)
             for d, s in (_difference(y, se, start, split, end) for split in range(start + 1, end))]
    return Fit(tuple(steps), tuple(segments), float(np.expm1(max(inner))) if inner else 0.0)
