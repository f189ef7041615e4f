"""Simulated null release histories: the components a measured history gives, and the false-step rate of the
history's own fit when the jobs' intervals hold and when they are too narrow."""

from __future__ import annotations

from itertools import islice

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from jaxpitfalls.across_runs.calibration import null_histories
from jaxpitfalls.across_runs.history import null_drawn
from jaxpitfalls.across_runs.history.null_drawn import Components, components, drawn, false_steps


def false_step_rate(measured: list[Components], releases: int, repeats: int, histories: int) -> tuple[int, int]:
    return sum(islice(false_steps(measured, releases, repeats), histories)), histories


def test_the_components_of_a_measured_history_are_recovered():
    """A history of many releases timed in two jobs each, a 2% spread between jobs and 1% between releases:
    the moments give both back."""
    truth = [Components(jobs=0.02 ** 2, releases=0.01 ** 2, reported=(0.01,))]
    table = null_drawn.history(np.random.default_rng(3), truth, releases=400, repeats=2)
    (found,) = components(table)
    assert np.sqrt(found.jobs) == pytest.approx(0.02, rel=0.1)
    assert np.sqrt(found.releases) == pytest.approx(0.01, rel=0.3)
    assert set(np.round(found.reported, 4)) == {0.01}


def test_drawn_jobs_report_their_errors_on_their_own_df_as_the_measured_ones_did():
    """A measured history whose jobs' intervals rest on 4 df: its components keep each error with its df, and a
    drawn history builds every job's interval on t(4) about its error, so the fit reads it as the timed one."""
    truth = [Components(jobs=0.02 ** 2, releases=0.0, reported=(0.01,), dfs=(4.0,))]
    table = null_drawn.history(np.random.default_rng(3), truth, releases=40, repeats=2)
    assert set(table.ratio_df) == {4.0}
    half = np.log(table.ratio_ci_high / table.ratio)
    assert np.allclose(half, stats.t.ppf(0.975, 4) * 0.01)
    (found,) = components(table)
    assert set(found.dfs) == {4.0} and set(np.round(found.reported, 6)) == {0.01}


def test_one_job_a_release_cannot_give_the_spread_between_jobs():
    table = null_drawn.history(np.random.default_rng(0), [Components(1e-4, 0.0, (0.01,))], 6, 1)
    with pytest.raises(ValueError, match="no release timed in two jobs"):
        components(table)


def test_the_fit_names_few_false_steps_where_intervals_hold_and_where_a_job_offset_goes_uncounted():
    """Six releases, four series. Intervals that hold (a job's spread is what it reports): few histories name
    a step. A job offset three times its reported error: at one job a release nothing but the fit's Birge ratio
    measures it, and the steps it widens are tested on the few degrees of freedom it rests on (read as known, it
    let a fifth of these histories name a step); at two jobs the spread between jobs goes into every interval."""
    holding = [Components(0.01 ** 2, 0.0, (0.01,))] * 4
    k, n = false_step_rate(holding, releases=6, repeats=2, histories=60)
    assert k / n <= 0.1
    offset = [Components(0.01 ** 2 + 0.03 ** 2, 0.0, (0.01,))] * 4
    once, n = false_step_rate(offset, releases=6, repeats=1, histories=60)
    twice, _ = false_step_rate(offset, releases=6, repeats=2, histories=60)
    assert once / n <= 0.15 and twice / n <= 0.05


def test_the_section_states_each_repeats_rate_against_its_target_at_the_offsets_upper_bound_and_without_them():
    table = null_drawn.history(np.random.default_rng(1), [Components(0.01 ** 2, 0.01 ** 2, (0.01,))] * 2, 6, 2)
    outcomes = drawn(table, histories=20, steps=())
    found = null_histories.rates(outcomes)
    assert found.repeats.tolist() == [1, 2] * 3 and (found.histories == 20).all()
    assert found.between_releases.tolist() == ["as measured"] * 2 + ["95% upper bound"] * 2 + ["none"] * 2
    assert found.offsets.iloc[0] == 1.0 and found.offsets.iloc[2] > 1.0 and found.offsets.iloc[4] == 0.0
    assert set(found.met[:4]) <= {"yes", "by its point", "cannot tell", "no"}
    assert set(found.met[4:]) == {""}  # judged where offsets are drawn
    assert (found.share_low <= found.share).all() and (found.share <= found.share_high).all()
    text = "\n".join(null_histories.section(table, outcomes, found, null_histories.step_power(outcomes, 2)))
    assert "(2 series, 6 releases)" in text and "naming_a_step" in text and "histories simulated without it" in text
    assert "`95% upper bound` draws every series' offset variance times `offsets`" in text


def test_the_offsets_upper_bound_is_where_few_histories_estimate_as_little_as_measured():
    """Eight series with a 2% offset between releases: the upper bound's factor lies above 1 and within the powers
    of 1.25 a sound estimate of it allows; where the history measured no offset at all, there is none to bound."""
    truth = [Components(0.01 ** 2, 0.02 ** 2, (0.01,))] * 8
    def upper(table: pd.DataFrame, histories: int) -> float | None:
        return null_drawn.upper_bound(drawn(table, (), 1, (), upper_histories=histories))

    factor = upper(null_drawn.history(np.random.default_rng(4), truth, 6, 2), 60)
    assert 1.0 < factor <= 1.25 ** 8
    flat = null_drawn.history(np.random.default_rng(4), [Components(0.0, 0.0, (0.01,))] * 2, 6, 2)
    assert upper(flat, 20) is None


def test_a_series_declared_primary_finds_the_step_planted_in_it_as_often_at_least_and_names_few_false_ones():
    """Eight series of a null history (2% between a release's jobs, 1% intervals): declared primary, the slowed series
    of the same drawn histories is named at least as often as undeclared and the declared series' false steps stay
    under the target; the page says both."""
    table = null_drawn.history(np.random.default_rng(6), [Components(0.02 ** 2, 0.0, (0.01,))] * 8, 6, 2)
    outcomes = drawn(table, (), 40, (0.05,), 40, upper_histories=1)
    power = null_histories.step_power(outcomes).set_index("history").share
    assert power["declared, simulated"] >= power["simulated"] + 0.1  # 22.5% against 5% of these 40
    assert power["declared, timed"] >= power["timed"]
    false = null_histories.rates(outcomes, null_drawn.FALSE_DECLARED)
    assert (false.share <= 0.05).all() and set(false.between_releases) <= {"as measured", "95% upper bound"}
    (line, _) = null_histories.declared_lines(null_histories.step_power(outcomes), false)
    assert line.startswith("Declared primary (`history.primary`") and "a 5% step in" in line
    assert "the declared series (each null history declares one in turn) named a step in" in line


def test_an_offset_between_releases_is_told_from_the_estimates_noise_where_it_is_large():
    """Eight series, six releases in two jobs each, a job's spread 1%: histories without an offset between
    releases estimate one of 3% almost never; where there is none, the measured one is chance's (over five
    histories, as often as not)."""
    def chance(offset: float, seed: int) -> float:
        truth = [Components(0.01 ** 2, offset ** 2, (0.01,))] * 8
        measured = null_drawn.DrawnFrom.of(null_drawn.history(np.random.default_rng(seed), truth, 6, 2))
        return sum(islice(null_drawn.outcomes(measured, null_drawn.BY_CHANCE, 0.0, 2, 0.0, 0), 50)) / 50

    assert chance(0.03, seed=5) <= 0.02
    assert 0.2 <= np.mean([chance(0.0, seed) for seed in range(5, 10)]) <= 0.8


def test_a_planted_step_is_found_at_its_place_more_often_the_larger_it_is():
    """Histories drawn from a measured one (two series, 2% between jobs of a release, honest 1% intervals) with one
    series slowed from a drawn release on: a 15% step is named at its place in most of them, a 1% step in few,
    and the page's power line states both with their intervals."""
    table = null_drawn.history(np.random.default_rng(6), [Components(0.02 ** 2, 0.0, (0.01,))] * 2, 6, 2)
    power = null_histories.step_power(drawn(table, (), 1, (0.01, 0.15), 30, upper_histories=1))
    simulated = power[power.history == "simulated"]
    small, large = simulated.share
    assert large >= 0.7 and small <= 0.2 and list(simulated.histories) == [30, 30]
    (line, _, timed, _) = null_histories.power_lines(power)
    assert "a 15% step in" in line and "a 1% step in" in line
    assert "Planted in the timed null history itself (2 jobs a release)" in timed


def test_a_step_planted_in_the_timed_history_is_found_where_it_was_planted():
    """The timed history's own rows, each series slowed from each later release on in turn (2 series x 5 places):
    a 15% step against 1% intervals is named at its place every time, a 0.1% one almost never; a step the fit
    names elsewhere does not count."""
    table = null_drawn.history(np.random.default_rng(7), [Components(0.005 ** 2, 0.0, (0.01,))] * 2, 6, 2)
    table["release"] = table.release.map({f"r{r}": f"0.{r}.0" for r in range(6)})  # named as a real history's
    power = null_histories.step_power(drawn(table, (), 1, (0.001, 0.15), 1, upper_histories=1))
    found = power[power.history == "timed"].set_index("step")
    assert (found.histories == 10).all() and (found.history == "timed").all() and (found.repeats == 2).all()
    assert found.found[0.15] == 10 and found.found[0.001] <= 1
    outcomes = pd.DataFrame({"arm": [null_drawn.STEP_TIMED], "between_releases": [""], "offsets": [1.0],
                             "repeats": [2], "step": [0.1], "outcomes": ["11000" + "00000"]})  # both in one series
    wilson_high, clustered_high = (null_histories.step_power(outcomes, series).share_high.iloc[0] for series in (1, 2))
    assert clustered_high > wilson_high  # a series' trials share its noise: two series, not ten draws
    assert not null_drawn.finds_step(table, [f"0.{r}.0" for r in range(6)], ("base", "s0", "floor", "m"), 3)


def test_the_timed_trials_are_clustered_by_the_series_each_planted_its_step_in(monkeypatch):
    table = null_drawn.history(np.random.default_rng(7), [Components(0.005 ** 2, 0.0, (0.01,))] * 3, 4, 2)
    planted_in = []
    monkeypatch.setattr(null_drawn, "finds_step", lambda *args: planted_in.append(args[2]) or True)
    assert list(null_drawn._planted_in_timed(table, 0.1)) == [1] * 9  # 3 series x 3 later releases
    names = list(dict.fromkeys(planted_in))
    assert [names.index(key) for key in planted_in] == list(null_drawn.timed_trial_series(9, 3))


def test_each_arm_drawn_again_begins_as_drawn_and_a_changed_fit_shows(tmp_path, monkeypatch):
    """The kept outcomes are checked by drawing each arm's first histories again: every arm's stream, the later
    planted steps' after the earlier ones' draws, begins as drawn (through a CSV, as kept); a fit that names
    steps where it did not, does not."""
    table = null_drawn.history(np.random.default_rng(8), [Components(0.01 ** 2, 0.01 ** 2, (0.01,))] * 2, 5, 2)
    outcomes = drawn(table, (1,), 6, (0.01, 0.2), 6, upper_histories=6)
    assert set(outcomes.arm) == {null_drawn.AS_SMALL, null_drawn.FALSE_STEPS, null_drawn.BY_CHANCE,
                                 null_drawn.STEP_DRAWN, null_drawn.STEP_TIMED, null_drawn.FALSE_DECLARED,
                                 null_drawn.DRAWN_DECLARED, null_drawn.TIMED_DECLARED}
    outcomes.to_csv(tmp_path / "kept.csv", index=False)
    kept = null_drawn.read(tmp_path / "kept.csv")
    again = null_drawn.drawn_again(table, kept, 4)
    assert again.drop(columns="outcomes").equals(kept.drop(columns="outcomes"))
    assert (again.outcomes == kept.outcomes.str[:4]).all()
    assert (kept[kept.arm == null_drawn.FALSE_STEPS].outcomes.str[:4] != "1111").all()
    monkeypatch.setattr(null_drawn, "names_a_step", lambda ratios, releases, declared=None: True)
    again = null_drawn.drawn_again(table, kept, 4)
    assert (again[again.arm == null_drawn.FALSE_STEPS].outcomes == "1111").all()


@pytest.mark.parametrize(("named", "met"), [(2, "yes"), (26, "cannot tell"), (24, "by its point"), (60, "no")])
def test_a_false_step_rate_is_met_only_with_its_bound_and_missed_only_beyond_its_interval(named, met):
    """At most 5% of 500 null histories, the Wilson bound at most 7%: 24 (4.8% [3.2%, 7.1%]) meets it by its point
    alone, 26 (5.2% [3.6%, 7.5%]) cannot be told from 5%, 60 (12%) misses it."""
    outcomes = pd.DataFrame({"arm": [null_drawn.FALSE_STEPS], "between_releases": ["as measured"], "offsets": [1.0],
                             "repeats": [1], "outcomes": ["1" * named + "0" * (500 - named)]})
    assert null_histories.rates(outcomes).met.tolist() == [met]
