"""Change points over releases on series with known steps: found where they are, with their size; none where
there is none, however many releases; a release measured badly moves nothing; releases scattered beyond their
intervals widen the fit instead of naming steps."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from jaxpitfalls.across_runs.history import changepoints
from jaxpitfalls.across_runs.history.changepoints import _best_fits, _scale, expected_scatter, fit_steps

RELEASES = [f"0.11.{i}" for i in range(12)]


def _series(levels: list[float], half_width: float = 0.03, seed: int = 0) -> tuple[list, list, list]:
    """Measured ratios around `levels`: each off by noise of its own interval's size, that interval +-half_width."""
    rng = np.random.default_rng(seed)
    measured = np.asarray(levels) * np.exp(rng.normal(0, half_width / 1.96, len(levels)))
    return list(measured), list(measured * (1 - half_width)), list(measured * (1 + half_width))


@pytest.mark.parametrize("seed", range(5))
def test_a_flat_series_has_no_step_and_rules_out_large_ones(seed):
    fit = fit_steps(RELEASES, *_series([1.0] * 12, seed=seed))
    assert fit.steps == () and len(fit.segments) == 1
    assert 0 < fit.ruled_out < 0.10  # +-3% intervals: a step of 10% would have shown


@pytest.mark.parametrize("seed", range(5))
def test_a_step_is_found_between_the_releases_it_lies_between_with_its_size(seed):
    fit = fit_steps(RELEASES, *_series([1.0] * 8 + [1.3] * 4, seed=seed))
    (step,) = fit.steps
    assert (step.before, step.after) == ("0.11.7", "0.11.8")
    assert step.low < 1.3 < step.high and step.low > 1.2
    assert [(s.first, s.last) for s in fit.segments] == [("0.11.0", "0.11.7"), ("0.11.8", "0.11.11")]
    assert step.also_between == ()  # a clean step: no other place fits


def test_a_release_measured_between_the_two_levels_leaves_the_step_s_place_open():
    levels = np.array([1.0] * 6 + [np.sqrt(1.3)] + [1.3] * 5)  # the sixth release halfway (in log), less precise
    half_width = np.array([0.03] * 6 + [0.12] + [0.03] * 5)
    fit = fit_steps(RELEASES, levels, levels * (1 - half_width), levels * (1 + half_width))
    (step,) = fit.steps
    places = {(step.before, step.after), *step.also_between}
    assert places == {("0.11.5", "0.11.6"), ("0.11.6", "0.11.7")}


def test_two_steps_either_way():
    fit = fit_steps(RELEASES, *_series([1.0] * 4 + [1.5] * 4 + [1.1] * 4))
    assert [(s.before, s.after) for s in fit.steps] == [("0.11.3", "0.11.4"), ("0.11.7", "0.11.8")]
    assert fit.steps[0].ratio > 1.3 and fit.steps[1].ratio < 0.8


def test_a_release_measured_badly_is_no_step():
    ratios, lows, highs = _series([1.0] * 12)
    ratios[5], lows[5], highs[5] = 1.4, 0.7, 2.8  # far off, and its interval says how little it knows
    assert fit_steps(RELEASES, ratios, lows, highs).steps == ()


def test_a_step_smaller_than_the_noise_is_not_claimed():
    assert fit_steps(RELEASES, *_series([1.0] * 6 + [1.02] * 6, half_width=0.10)).steps == ()


def test_a_release_split_off_alone_in_one_job_gives_way_to_the_fit_that_keeps_it_with_its_neighbours():
    """The equinox history's filter_jit / jit_flat (blocked): 0.11.8, timed in one job, stood at
    2.05 between 1.75 before it and 1.95 after; the best fit split it off alone, so the 0.11.7 -> 0.11.8 step
    rested on one release and went unnamed. With `single` marking it, the fit that keeps it with the later
    releases names that step and says which release it set apart; unmarked, the best fit stands."""
    labels = RELEASES[:8]
    levels = [1.75] * 4 + [2.05] + [1.95] * 3
    ratios, lows, highs = _series(levels, half_width=0.02)
    best = fit_steps(labels, ratios, lows, highs)
    assert [(s.first, s.last) for s in best.segments if s.first == s.last] == [("0.11.4", "0.11.4")]
    single = [label == "0.11.4" for label in labels]
    kept = fit_steps(labels, ratios, lows, highs, single=single)
    assert [(s.before, s.after) for s in kept.steps] == [("0.11.3", "0.11.4")] and kept.set_apart == ("0.11.4",)
    assert 1.08 < kept.steps[0].ratio < 1.2


def test_a_release_split_off_alone_with_no_other_fit_that_has_a_step_stands_as_found():
    ratios, lows, highs = _series([1.0] * 5 + [1.3] + [1.0] * 6)
    single = [True] * 12
    fit = fit_steps(RELEASES, ratios, lows, highs, single=single)
    assert [(s.before, s.after) for s in fit.steps] == [("0.11.4", "0.11.5"), ("0.11.5", "0.11.6")]
    assert fit.set_apart == ()


def test_intervals_on_few_degrees_of_freedom_need_a_larger_step():
    """The same measurements (a 6% step, each release's standard error 1.5%), their intervals built on t with
    the degrees of freedom their spread was estimated on: told apart where that spread is known, not on two
    degrees of freedom (t's tail at the Bonferroni level); the step's size is the same, its interval wider."""
    ratios, _, _ = _series([1.0] * 6 + [1.06] * 6, seed=1)

    def fit(df: float):
        half = np.exp(0.015 * (1.96 if np.isinf(df) else stats.t.ppf(0.975, df)))
        return fit_steps(RELEASES, ratios, [r / half for r in ratios], [r * half for r in ratios], df=df)

    (known,) = fit(np.inf).steps
    assert fit(2).steps == ()
    (estimated,) = fit(30).steps
    assert estimated.ratio == pytest.approx(known.ratio) and estimated.low < known.low


def test_a_fits_scale_is_its_scatter_beyond_the_intervals_over_what_its_search_leaves_where_nothing_changed():
    def scale(y: list[float], bounds: list[int]) -> float:
        return _scale(changepoints._WeightedLevel().fit(np.column_stack([y, np.full(len(y), 0.01 ** -2)])), bounds)

    assert scale([0.0, 0.0, 0.0], [0, 3]) == 1.0  # no scatter: never narrowed below the intervals
    assert scale([0.0, 0.03, 0.0], [0, 3]) == pytest.approx(np.sqrt(3.0))  # 6 over the 2 a level leaves
    assert scale([0.0, 0.03, 0.0], [0, 1, 3]) == pytest.approx(np.sqrt(4.5 / expected_scatter(3, 1)))
    assert scale([0.0, 0.03], [0, 1, 2]) == 1.0  # a release to each level: nothing left


def test_the_scatter_a_search_leaves_is_the_best_split_of_each_draw_below_the_degrees_of_freedom():
    """The dynamic program's mean is the mean over the same draws of the best of every placement of k steps; a
    search leaves less than the n - k - 1 degrees of freedom a fixed placement would."""
    draws, n = 300, 6
    y = np.random.default_rng(0).standard_normal((draws, n))
    for k in (1, 2, 3):
        best = np.min([sum(np.sum((y[:, a:b] - y[:, a:b].mean(axis=1, keepdims=True)) ** 2, axis=1)
                           for a, b in itertools.pairwise((0, *cuts, n)))
                       for cuts in itertools.combinations(range(1, n), k)], axis=0)
        assert expected_scatter(n, k, draws=draws) == pytest.approx(best.mean(), rel=1e-9)
    assert expected_scatter(8, 0) == 7.0
    assert expected_scatter(6, 1) < 6 - 2 - 0.9 and expected_scatter(6, 2) < 6 - 3 - 1.5
    assert abs(expected_scatter(6, 5)) < 1e-9  # a release to each level: nothing left, read as no widening
    with pytest.raises(ValueError, match="6 steps cannot split 6 releases"):
        expected_scatter(6, 6)


def test_the_search_finds_the_best_fit_of_every_placement_of_the_steps():
    """Against every placement of 1-3 steps over 7 releases weighted unequally: the least weighted squared error."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        signal = np.column_stack([rng.normal(0, 0.02, 7), rng.uniform(0.5, 2.0, 7) * 0.01 ** -2])
        cost = changepoints._WeightedLevel().fit(signal)
        for k in (1, 2, 3):
            scatter = {cuts: sum(cost.error(a, b) for a, b in itertools.pairwise((0, *cuts, 7)))
                       for cuts in itertools.combinations(range(1, 7), k)}
            assert _best_fits(cost, 7, k)[k] == [0, *min(scatter, key=scatter.get), 7]


def test_read_against_it_exact_intervals_give_a_squared_ratio_of_one_on_average_at_each_number_of_steps():
    """Fits by the exact search, on draws other than expected_scatter's."""
    rng = np.random.default_rng(11)
    for k in (1, 2, 3):
        squared = []
        for _ in range(400):
            signal = np.column_stack([rng.normal(0, 0.01, 8), np.full(8, 0.01 ** -2)])
            cost = changepoints._WeightedLevel().fit(signal)
            bounds = _best_fits(cost, 8, k)[k]
            scatter = sum(cost.error(a, b) for a, b in zip(bounds, bounds[1:], strict=False))
            squared.append(scatter / expected_scatter(8, k))
        assert np.mean(squared) == pytest.approx(1.0, abs=0.1)


def test_releases_scattered_beyond_their_intervals_widen_the_fit_and_name_no_step(monkeypatch):
    """Six releases, 1% errors, scattered about 3% with no step: taken at face value the intervals name one
    (0.11.0 -> 0.11.1); the fit's own scale reads the scatter as noise."""
    ratios = np.array([1.027, 1.003, 0.978, 0.973, 0.986, 1.007])
    measured = (RELEASES[:6], list(ratios), list(ratios / np.exp(1.96 * 0.01)), list(ratios * np.exp(1.96 * 0.01)))
    assert fit_steps(*measured).steps == ()
    monkeypatch.setattr(changepoints, "_scale", lambda *_: 1.0)
    assert [(s.before, s.after) for s in fit_steps(*measured).steps] == [("0.11.0", "0.11.1")]


def test_each_release_s_interval_is_read_back_by_its_own_quantile():
    """Releases whose jobs' own intervals held (built on the normal quantile, df infinite) beside one built on t
    with 5 degrees of freedom: each is read back to the same 1.5% standard error, so the fit is the one of twelve
    releases known alike, tested on the fewest degrees of freedom (reading every release by t(5), as the series'
    fewest did before, narrowed the eleven; where their scatter exceeds that, the fit's Birge ratio took it back)."""
    ratios, _, _ = _series([1.0] * 6 + [1.03] * 6, seed=2)
    dfs = [np.inf] * 11 + [5.0]
    half = [np.exp(0.015 * (1.96 if np.isinf(d) else stats.t.ppf(0.975, d))) for d in dfs]
    lows, highs = [r / h for r, h in zip(ratios, half, strict=True)], [r * h for r, h in zip(ratios, half, strict=True)]
    own = fit_steps(RELEASES, ratios, lows, highs, df=dfs)
    alike = fit_steps(RELEASES, ratios, [r / half[0] for r in ratios], [r * half[0] for r in ratios], df=5.0)
    assert own.steps == alike.steps and own.ruled_out == pytest.approx(alike.ruled_out, rel=1e-3)


def test_a_fit_its_birge_ratio_widens_is_tested_on_the_degrees_of_freedom_that_ratio_rests_on():
    """Six releases known to 0.1%, a step between the third and fourth. Levels flat within each segment: the
    intervals hold the scatter and the step is tested on the normal quantile. The same step with levels scattered
    1% about each segment's mean: the Birge ratio widens the intervals, estimated from 6 - 1 - 1 = 4 degrees of
    freedom, and the step must clear t(4)'s Bonferroni quantile (4.60 at 0.5%, against the normal's 2.58)."""
    se = 0.001

    def named(y: list[float]) -> list[tuple[str, str]]:
        r = np.exp(y)
        return [(s.before, s.after) for s in fit_steps(RELEASES[:6], r, r * np.exp(-1.96 * se),
                                                       r * np.exp(1.96 * se)).steps]

    flat = se * np.sqrt(2 / 3)  # the step's standard error: three releases on each side
    assert named([0, 0, 0, *[3.5 * flat] * 3]) == [("0.11.2", "0.11.3")]
    jitter = [0.01, -0.01, 0.0]
    scale = np.sqrt(4 * (0.01 / se) ** 2 / expected_scatter(6, 1))
    for multiple, found in ((3.5, []), (5.0, [("0.11.2", "0.11.3")])):
        step = multiple * flat * scale
        assert named([*jitter, *(step + j for j in jitter)]) == found, multiple


def test_each_step_on_its_own_releases_df_where_they_are_known():
    """The same 6% step (standard errors 1.5%), one release far from it measured on 2 degrees of freedom, the rest
    on 30: on the fewest df the step is not told apart (t's tail on 2 df at the Bonferroni level); each step on its
    own releases' df (Satterthwaite: the far release weighs a sixth of its side), it is, its size as where every
    df is known."""
    ratios, _, _ = _series([1.0] * 6 + [1.06] * 6, seed=1)
    dfs = [2.0] + [30.0] * 11
    halves = [np.exp(0.015 * stats.t.ppf(0.975, df)) for df in dfs]
    lows, highs = [r / h for r, h in zip(ratios, halves, strict=True)], [r * h for r, h in zip(ratios, halves,
                                                                                              strict=True)]
    assert fit_steps(RELEASES, ratios, lows, highs, df=dfs).steps == ()
    parts = changepoints.Parts(np.zeros(12), np.array(dfs), np.full(12, np.inf))  # no spread: the jobs' df alone
    (own,) = fit_steps(RELEASES, ratios, lows, highs, df=dfs, parts=parts).steps
    (known,) = fit_steps(RELEASES, ratios, [r / np.exp(0.015 * 1.96) for r in ratios],
                         [r * np.exp(0.015 * 1.96) for r in ratios]).steps
    assert own.ratio == pytest.approx(known.ratio) and own.low == pytest.approx(known.low, rel=1e-3)


def test_a_mean_of_releases_on_their_own_df_pools_them_as_satterthwaite_does():
    """Weighted by their errors, each release's part of a mean on its own df; the spread between jobs, one estimate
    every release of a series shares, counts once on its own df, not once a release."""
    def pooled(se, share, jobs_df, spread_df, split=None):
        n = len(se)
        parts = changepoints.Parts(*(np.array(p, dtype=float) for p in (share, jobs_df, spread_df)))
        return changepoints._pooled_df(np.array(se), parts, 0, split or n, n)

    assert pooled([0.01] * 4, [0] * 4, [5] * 4, [np.inf] * 4) == pytest.approx(20.0)  # four alike: df add up
    assert pooled([0.01] * 4, [0] * 4, [5] * 4, [np.inf] * 4, split=2) == pytest.approx(20.0)  # two means of two
    # weights 0.8 and 0.2: parts 0.008^2 and 0.004^2 on 5 and 10 df
    assert pooled([0.01, 0.02], [0, 0], [5, 10], [np.inf] * 2) == pytest.approx(
        (0.008 ** 2 + 0.004 ** 2) ** 2 / (0.008 ** 4 / 5 + 0.004 ** 4 / 10))
    # half of each release's variance the shared spread on 6 df: 20.9 df, not the 60 of four spreads apart
    shared = pooled([0.01] * 4, [0.5] * 4, [10] * 4, [6] * 4)
    assert shared == pytest.approx((4 * 0.0025 ** 2) ** 2 / (4 * (0.0025 ** 2 / 2) ** 2 / 10
                                                             + (4 * 0.0025 ** 2 / 2) ** 2 / 6))
    assert 20 < shared < 21
