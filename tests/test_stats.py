"""Summaries and paired comparisons: the numbers every table and scorecard row is built from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jaxpitfalls.harness import stats


def test_summary_of_known_samples():
    s = stats.summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s["median"] == 3.0 and s["n"] == 5 and s["min"] == 1.0 and s["max"] == 100.0
    assert s["iqr"] == 2.0
    with pytest.raises(ValueError):
        stats.summarize([])


def test_paired_ratio_recovers_the_true_ratio_despite_drift_and_is_deterministic():
    rng = np.random.default_rng(0)
    drift = rng.uniform(1.0, 3.0, 200)  # a drifting machine slows both variants alike
    floor = drift * 10e-3
    variant = drift * 12e-3 * rng.normal(1.0, 0.01, 200)
    c = stats.paired_comparison(variant, floor)
    assert c["ratio"] == pytest.approx(1.2, abs=0.005)
    assert c["ratio_ci_low"] <= c["ratio"] <= c["ratio_ci_high"]
    assert c["ratio_ci_high"] - c["ratio_ci_low"] < 0.01  # pairing removes the drift
    assert c == stats.paired_comparison(variant, floor)


def test_one_processes_difference_is_its_ratio_read_in_seconds_and_mirrors_when_reversed():
    """The difference is what the ratio stands for at the sides' medians (the two never disagree on an effect),
    and the pair read the other way round gives the same estimate: ratio inverted, difference negated."""
    rng = np.random.default_rng(1)
    floor = rng.uniform(9e-3, 11e-3, 40)
    variant = floor * rng.normal(1.03, 0.05, 40)
    c, back = stats.paired_comparison(variant, floor), stats.paired_comparison(floor, variant)
    ends = stats.difference_at([c["ratio"], c["ratio_ci_low"], c["ratio_ci_high"]], np.median(variant),
                               np.median(floor))
    assert [c["diff"], c["diff_ci_low"], c["diff_ci_high"]] == pytest.approx(list(ends))
    assert (c["ratio_ci_low"] > 1) == (c["diff_ci_low"] > 0) and (c["ratio_ci_high"] < 1) == (c["diff_ci_high"] < 0)
    assert [back["ratio"], back["ratio_ci_low"]] == pytest.approx([1 / c["ratio"], 1 / c["ratio_ci_high"]])
    assert [back["diff"], back["diff_ci_low"]] == pytest.approx([-c["diff"], -c["diff_ci_high"]])
    assert stats.difference_at(1.25, 5.0, 4.0) == pytest.approx(1.0)  # 5 - 4 where r is their quotient


def test_paired_comparison_refuses_unpaired_samples():
    with pytest.raises(ValueError, match="differ in length"):
        stats.paired_comparison([1.0, 2.0], [1.0])


def test_difference_of_two_estimates_can_be_significant_though_their_intervals_overlap():
    """2.0 [1.5, 2.5] vs 1.15 [0.65, 1.65]: the intervals share [1.5, 1.65], yet the difference's interval
    (half-widths added in quadrature, not end to end) excludes 0."""
    diff, low, high = stats.difference_of_estimates(2.0, (1.5, 2.5), 1.15, (0.65, 1.65))
    assert diff == pytest.approx(0.85)
    assert low == pytest.approx(0.85 - 0.5 * np.sqrt(2)) and low > 0
    assert high == pytest.approx(0.85 + 0.5 * np.sqrt(2))
    assert stats.difference_of_estimates(2.0, (1.5, 2.5), 1.5, (1.0, 2.0))[1] < 0  # 0.5 apart: cannot tell


def test_ratio_of_estimates_works_on_the_log_scale():
    ratio, low, high = stats.ratio_of_estimates(2.0, (1.0, 4.0), 1.0, (1.0, 1.0))
    assert ratio == pytest.approx(2.0) and (low, high) == pytest.approx((1.0, 4.0))
    ratio, low, high = stats.ratio_of_estimates(1.2, (1.1, 1.3), 1.2, (1.1, 1.3))
    assert ratio == pytest.approx(1.0) and low < 1 < high


def test_geometric_mean_of_ratios_is_narrower_than_each_and_centred_on_the_log_mean():
    ratio, low, high = stats.geometric_mean_ratio([1.0] * 4, [1 / 1.2] * 4, [1.2] * 4)
    assert ratio == pytest.approx(1.0)
    assert (low, high) == pytest.approx((1.2 ** -0.5, 1.2 ** 0.5))  # four independent: half the log width
    assert stats.geometric_mean_ratio([2.0, 0.5], [1.9, 0.45], [2.1, 0.55])[0] == pytest.approx(1.0)


def test_one_ratio_read_as_one_is_itself_with_its_own_interval():
    one = pd.Series([0.993], index=[7])  # a table's row keeps its index
    assert stats.geometric_mean_ratio(one, one - 0.019, one + 0.022) == pytest.approx((0.993, 0.974, 1.015))


def test_a_power_law_exponent_is_as_precise_as_its_points_and_widens_where_they_leave_the_line():
    """Three sizes with 10% intervals: the interval comes from the points' (a t-interval on 1 degree of
    freedom would span tens of units); points off any power law widen it by their scatter."""
    x = np.array([24.0, 48.0, 72.0])
    on_line = stats.power_law_exponent(x, 2 * x ** 1.5, 1.8 * x ** 1.5, 2.2 * x ** 1.5)
    assert on_line["exponent"] == pytest.approx(1.5) and on_line["points"] == 3
    assert 1.3 < on_line["exponent_ci_low"] < 1.5 < on_line["exponent_ci_high"] < 1.7
    bent = 2 * x ** 1.5 * np.array([1.0, 1.6, 1.0])
    scattered = stats.power_law_exponent(x, bent, 0.9 * bent, 1.1 * bent)
    assert scattered["exponent_ci_high"] - scattered["exponent_ci_low"] > 3 * (
        on_line["exponent_ci_high"] - on_line["exponent_ci_low"])
    with pytest.raises(ValueError, match="two distinct sizes"):
        stats.power_law_exponent([24, 24], [1, 2], [0.9, 1.8], [1.1, 2.2])


def test_relative_iqr_is_robust_to_one_outlier_and_has_an_interval():
    rng = np.random.default_rng(0)
    steady = 0.010 * (1 + 0.02 * rng.standard_normal(40))
    spiky = np.concatenate([steady[:-1], [1.0]])  # one sample 100x the others: the std explodes, the IQR does not
    estimate, low, high = stats.relative_iqr_ci(spiky)
    assert np.std(spiky) / np.median(spiky) > 10 and estimate < 0.05 and low <= estimate <= high < 0.1
    wide = stats.relative_iqr_ci(0.010 * (1 + 0.3 * rng.standard_normal(40)))
    assert wide[1] > high  # a 15x wider spread is told apart


def test_the_marginal_cost_ratio_is_1_for_a_fixed_part_plus_a_cost_per_unit_and_2_for_a_square():
    n = np.array([24.0, 48.0, 96.0])
    affine, square = 500 + 10 * n, n ** 2
    assert stats.marginal_cost_ratio(n, affine, affine * 0.99, affine * 1.01)[0] == pytest.approx(1.0)
    assert stats.marginal_cost_ratio(n, square, square * 0.99, square * 1.01)[0] == pytest.approx(144 / 72)
    assert np.isnan(stats.marginal_cost_ratio(n[:2], affine[:2], affine[:2], affine[:2])[0])  # two sizes: no ratio


def test_the_marginal_cost_ratio_s_interval_covers_the_truth_95_times_in_100():
    """Each time drawn about an affine truth with its own 3% standard error (the middle one shared by both
    slopes): the interval covers 1 in 93-97% of 4000 draws."""
    rng = np.random.default_rng(0)
    n = np.array([24.0, 48.0, 96.0])
    truth = 2000 + 40 * n
    covered = 0
    for _ in range(4000):
        se = 0.03 * truth
        y = truth + rng.normal(0, se)
        _, low, high = stats.marginal_cost_ratio(n, y, y - stats.Z_95 * se, y + stats.Z_95 * se)
        covered += low <= 1 <= high
    assert 0.93 <= covered / 4000 <= 0.97, covered / 4000


def test_a_comparison_of_two_differences_is_paired_round_by_round():
    """`a - b` against `c - d`: each round's difference of differences (a drift shared by the round cancels), and
    the ratio of the two medians with both resampled by the same draws; none where the baseline's median may be
    0 or below (no share of an overhead that may be nothing)."""
    drift = np.array([1.0, 1.5, 0.8, 2.0, 1.2, 0.9])  # the round's speed, shared by all four variants
    samples = {"a": 12.0 * drift, "b": 9.0 * drift, "c": 10.0 * drift, "d": 9.0 * drift}
    sides = (stats.difference_side("a", "b"), stats.difference_side("c", "d"))
    assert stats.is_difference(*sides) and not stats.is_difference("a", "b")
    compared = stats.paired_comparison(*(stats.side_samples(samples, side) for side in sides), of_medians=True)
    assert compared["diff"] == pytest.approx(np.median(2.0 * drift))  # r - 1 times the baseline's median
    assert [compared[k] for k in ("ratio", "ratio_ci_low", "ratio_ci_high")] == pytest.approx([3.0] * 3)
    samples["d"] = samples["d"] + np.array([2.0, 2.0, 2.0, 2.0, 2.0, 0.0])  # c - d below 0 in all rounds but one
    crossing = stats.paired_comparison(*(stats.side_samples(samples, side) for side in sides), of_medians=True)
    assert crossing["ratio"] is crossing["ratio_ci_low"] is crossing["ratio_ci_high"] is None
    assert crossing["diff"] == pytest.approx(np.median(stats.side_samples(samples, sides[0])
                                                       - stats.side_samples(samples, sides[1])))  # its own


def test_a_ratio_of_two_overheads_and_their_difference_are_one_estimate():
    """Where the baseline's overhead is positive, the difference of the two overheads is the one their ratio
    stands for (r - 1 times the baseline's median), its interval the ratio's mapped: never a second estimate."""
    rng = np.random.default_rng(2)
    over, base = rng.normal(3e-3, 4e-4, 30), rng.normal(2e-3, 4e-4, 30)
    c = stats.paired_comparison(over, base, of_medians=True)
    ends = [(c[k] - 1) * np.median(base) for k in ("ratio", "ratio_ci_low", "ratio_ci_high")]
    assert [c["diff"], c["diff_ci_low"], c["diff_ci_high"]] == pytest.approx(ends)


def test_repeats_widen_an_interval_by_their_mean_s_student_t_half_width():
    """Three captures at 1, 2 and 3 ms (sd 1): their mean's half-width is t(0.975, 2) / sqrt(3) = 2.484 ms,
    added in quadrature to each side of the medians' own interval; one capture says nothing of the spread."""
    value, low, high = stats.widened_by_repeats((2.0, 1.5, 2.6), [1.0, 2.0, 3.0])
    spread = 4.302653 / 3 ** 0.5
    assert value == 2.0
    assert low == pytest.approx(2.0 - (0.5 ** 2 + spread ** 2) ** 0.5, rel=1e-5)
    assert high == pytest.approx(2.0 + (0.6 ** 2 + spread ** 2) ** 0.5, rel=1e-5)
    assert stats.widened_by_repeats((2.0, 1.5, 2.6), [2.0, 2.0, 2.0]) == (2.0, 1.5, 2.6)  # no spread: as it was
    one = stats.widened_by_repeats((2.0, 1.5, 2.6), [2.0])
    assert one[1] == float("-inf") and one[2] == float("inf")


@pytest.mark.parametrize("rounds", [2, 3, 4])
def test_a_few_rounds_interval_covers_95_in_100_not_their_range(rounds):
    """Three paired rounds' bootstrap interval was their range: it held the true ratio 75 times in 100 (50 at two)."""
    rng = np.random.default_rng(0)
    draws = [np.exp(rng.normal(0, 0.05, (2, rounds))) * [[2], [1]] for _ in range(1000)]  # the truth: 2
    held = [[c["ratio_ci_low"] <= 2 <= c["ratio_ci_high"] for c in
             (stats.paired_comparison(a, b, of_medians=of_medians) for a, b in draws)] for of_medians in (False, True)]
    assert all(0.93 <= np.mean(h) <= 0.97 for h in held)


def test_a_few_times_interval_stays_above_zero():
    """Two or three rounds' medians in ms read as a t interval on their own scale reached below 0 (a power law
    through them then had no exponent)."""
    rng = np.random.default_rng(0)
    draws = [np.exp(rng.normal(0, 0.5, 2)) for _ in range(1000)]
    found = [stats.bootstrap_median_ci(x, times=True) for x in draws]
    assert all(low > 0 for low, _ in found) and 0.93 <= np.mean([low <= 1 <= high for low, high in found]) <= 0.97
