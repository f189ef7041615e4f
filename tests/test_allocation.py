"""Allocation (harness/allocation.py, across_runs/calibration/allocation.py): a job's variance split into its
between-process and within-process parts, its costs read off its samples and its machine time, the rounds Kalibera
and Jones' allocation gives, and the cheapest plan that brings a share of all rows to the gate's precision."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from jaxpitfalls.across_runs.calibration import allocation
from jaxpitfalls.harness.allocation import MIN_PROCESSES, cheapest, plan, variance_parts
from jaxpitfalls.harness.stats import enough_within, wilson

SIDES = ["a", "a2"]


def _job(between: float, within: float, processes: int = 40, rounds: int = 60, job_s: float = 1000.0,
         seed: int = 0, config_id: str = "c") -> dict:
    """A lockstep job of one mode and two variants whose a2/a round log-ratios have the given sds between processes
    and within one; every sample takes 10 ms of one call."""
    rng = np.random.default_rng(seed)
    per_process = []
    for _ in range(processes):
        sides = {"a": {}, "a2": {}}
        sides["a"]["blocked"] = {v: [0.01] * rounds for v in ("f", "g")}
        sides["a2"]["blocked"] = {v: list(0.01 * np.exp(rng.normal(0, between) + rng.normal(0, within, rounds)))
                                  for v in ("f", "g")}
        per_process.append(sides)
    return {"config_id": config_id, "job_seconds": job_s,
            "timed": {"sides": SIDES, "rounds": rounds, "processes": per_process,
                      "calls_per_sample": {"blocked": {"f": 1, "g": 1}}}}


def test_the_variance_splits_into_its_between_and_within_process_parts():
    within, between = allocation.components(_job(between=0.03, within=0.1)["timed"])
    assert math.sqrt(within) == pytest.approx(0.1, rel=0.05)
    assert math.sqrt(between) == pytest.approx(0.03, rel=0.25)


def test_processes_of_unequal_rounds_split_alike():
    """A study's processes may stop at different rounds (a mode's time budget): a process mean's variance is the
    between part plus within over its own rounds, so the correction is within x the mean of 1 / rounds."""
    within, between = variance_parts([[np.array([0.1, -0.1]), np.array([0.3, 0.1, 0.3, 0.1])]])
    assert within == pytest.approx((0.02 + 0.04 / 3) / 2)
    assert between == pytest.approx(0.02 - within * (1 / 2 + 1 / 4) / 2)  # not within / 3, the mean rounds


def test_a_variance_no_whole_plan_reaches_within_the_rounds_cap_has_no_plan():
    assert cheapest(within=0.01, between=0.0, process_s=1.0, round_s=1.0, variance=1e-9, processes=range(2, 4),
                    min_rounds=2) is None
    # processes differ: 2 x 10 rounds (22 s), 3 x 4 (15 s), 4 x 3 (16 s) reach it; the cheapest is taken
    assert cheapest(within=0.01, between=0.002, process_s=1.0, round_s=1.0, variance=0.0015, processes=range(2, 5),
                    min_rounds=2) == (4, 3, 15.0)


def test_a_round_costs_its_samples_and_a_process_the_rest_of_the_job():
    job = _job(between=0.03, within=0.1, processes=4, rounds=10, job_s=100.0)
    process_s, round_s = allocation.costs(job)
    samples = sum(sum(xs) for p in job["timed"]["processes"] for side in p.values() for xs in side["blocked"].values())
    assert round_s == pytest.approx(samples / 4 / 10) and process_s == pytest.approx((100.0 - samples) / 4)


def test_a_round_costs_its_watched_wall_time_where_the_job_kept_it():
    job = _job(between=0.03, within=0.1, processes=4, rounds=10, job_s=100.0)
    job["timed"]["machine"] = [{"blocked": [{"wall_s": 1.5}] * 10} for _ in range(4)]
    process_s, round_s = allocation.costs(job)
    assert round_s == pytest.approx(1.5) and process_s == pytest.approx((100.0 - 60.0) / 4)


def test_rounds_go_where_processes_agree_and_processes_where_they_differ():
    """Kalibera and Jones: sqrt(process cost x within / (round cost x between)) rounds a process."""
    least = MIN_PROCESSES
    rounds, processes, seconds = plan(within=0.01, between=0.0001, process_s=50.0, round_s=0.5, variance=0.00005,
                                      min_processes=least)
    assert rounds == round(math.sqrt(50 * 0.01 / (0.5 * 0.0001))) == 100
    assert processes == pytest.approx((0.0001 + 0.01 / 100) / 0.00005) == 4 and seconds == pytest.approx(
        processes * (50 + 100 * 0.5))
    # processes differ: sqrt(100) = 10 rounds; 5.5 processes reach the variance, so 6, which need 5 rounds each
    few, more, _ = plan(within=0.01, between=0.01, process_s=50.0, round_s=0.5, variance=0.002, min_processes=least)
    assert (few, more) == (5, 6)
    # the processes agree and few reach the variance: at the floor of processes, the rounds that reach it
    floor, at_floor, _ = plan(within=0.01, between=0.0, process_s=50.0, round_s=0.5, variance=0.001,
                              min_processes=least)
    assert at_floor == least and floor == math.ceil(0.01 / (0.001 * 3)) == 4


def test_the_section_sets_each_configurations_time_then_against_its_own():
    found = allocation.allocation_table([_job(between=0.005, within=0.1, processes=5, rounds=30, job_s=300.0)])
    (row,) = found.itertuples()
    assert row.rounds_then > 30 and row.time_then < 1 and row.processes_then == 3
    text = "\n".join(allocation.allocation_section(found))
    assert "## Where processes or rounds buy precision" in text and "not a measured run" in text
    assert "1 of 1 configurations would reach it in fewer processes of more rounds" in text
    assert allocation.allocation_section(allocation.allocation_table([])) == []


def test_the_gates_precision_is_where_a_10_percent_slowdown_clears_the_threshold_in_90_percent_of_runs():
    half = allocation.gate_half_width(0.05)
    assert math.expm1(half) == pytest.approx(0.0285, abs=0.0005)  # log(1.10 / 1.05) x 1.96 / (1.96 + 1.28)
    se = half / 1.96  # a slowed row's interval clears 1.05 where its estimate lies 1.96 se above it
    assert norm.sf((math.log(1.05) + 1.96 * se - math.log(1.10)) / se) == pytest.approx(0.90, abs=0.001)


def _rows(config_id: str, half_widths: list[float], df: float = 10.0) -> pd.DataFrame:
    return pd.DataFrame({"config_id": config_id, "ratio_ci_low": np.exp(-np.array(half_widths)),
                         "ratio_ci_high": np.exp(half_widths), "df": df})


def test_a_configuration_twice_as_wide_as_the_gate_needs_is_planned_at_a_quarter_of_its_variance():
    job = _job(between=0.02, within=0.1, processes=5, rounds=30, job_s=300.0)
    gate = allocation.gate_half_width(0.05)
    planned = allocation.allocation_table([job], _rows("c", [2 * gate] * 10))
    (wide,) = planned.itertuples()
    (narrow,) = allocation.allocation_table([job], _rows("c", [gate / 2] * 10)).itertuples()
    assert wide.time_precise > 2 * wide.time_then and (wide.at_gate, wide.at_gate_precise) == (0, 1)
    within, between = allocation.components(job["timed"])
    reached = (between + within / 30) / 5
    assert (between + within / wide.rounds_precise) / wide.processes_precise <= reached / 4
    assert narrow.time_precise <= 1 and (narrow.at_gate, narrow.at_gate_precise) == (1, 1)  # within: no dearer
    text = "\n".join(allocation.allocation_section(planned))
    assert "To the gate's precision:" in text and "±2.9%" in text and "(0% of this run's rows)" in text
    assert (f"    c: {{processes: {wide.processes_precise}, rounds: {wide.rounds_precise}, target_share: 1, "
            f"max_processes: {math.ceil(1.5 * wide.processes_precise)}}}") in text
    assert "  target_precision: 0.0281\n" in text  # the gate's half-width as a job reads it, relative
    assert "rounds_precise" not in "\n".join(allocation.allocation_section(
        allocation.allocation_table([job])))  # no rows given: no plan, no empty columns


@pytest.mark.parametrize("costly_first", [False, True])
def test_the_plan_brings_the_rows_that_are_cheapest_to_bring_and_leaves_the_rest(costly_first):
    """80% of 20 rows: either configuration's 3 wide rows brought within the gate reach 17 with the 14 already
    within it; the plan brings the cheaper one's, whichever comes first."""
    gate = allocation.gate_half_width(0.05)
    jobs = [_job(between=0.02, within=0.1, processes=5, rounds=30, job_s=s, config_id=name)
            for name, s in (("cheap", 300.0), ("costly", 3000.0))][::-1 if costly_first else 1]
    rows = pd.concat([_rows(name, [gate / 2] * 7 + [2 * gate] * 3) for name in ("cheap", "costly")])
    found = allocation.allocation_table(jobs, rows).set_index("config_id")
    assert found.at_gate_precise.to_dict() == {"cheap": 1.0, "costly": 0.7}
    assert tuple(found.loc["costly", ["processes_precise", "rounds_precise"]]) == (5, 30)  # as it ran
    plan = "\n".join(allocation.allocation_section(found.reset_index()))
    assert "costly: {processes: 5, rounds: 30, target_share: 0.7, max_processes: 8}" in plan


def test_a_plan_of_fewer_processes_is_held_to_the_t_quantile_it_then_has():
    """Fewer processes leave a row fewer degrees of freedom: at the same variance its interval is wider, so
    no plan the options give leaves a row wider than now."""
    job = allocation._Job(within=0.01, between=0.0, process_s=50.0, round_s=0.5, processes=5, rounds=30,
                                 widths=np.array([0.02, 0.03]), df=np.array([4.0, 4.0]))
    same = job.then(rounds=50, processes=3)  # (0 + 0.01 / 50) / 3 = (0 + 0.01 / 30) / 5: one variance
    assert (same > job.widths).all()
    for rounds, processes, _, _ in allocation._options(job, gate=0.025).values():
        assert (job.then(rounds, processes) <= job.widths + 1e-12).all()


def test_an_interval_not_estimated_is_never_within_the_gate():
    """Rows without an interval cannot be brought within the gate: 80% of 10 rows with 2 of them unestimated is
    every other row brought; with every row unestimated no plan reaches it, so none is given."""
    gate = allocation.gate_half_width(0.05)
    job = _job(between=0.02, within=0.1, processes=5, rounds=30)
    rows = _rows("c", [2 * gate] * 10)
    rows.loc[:1, "ratio_ci_high"] = np.nan
    (found,) = allocation.allocation_table([job], rows).itertuples()
    assert (found.at_gate, found.at_gate_precise) == (0, 0.8)
    assert "rounds_precise" not in allocation.allocation_table([job], rows.assign(ratio_ci_high=np.nan))
    within, rows_, _, low, high = allocation.at_gate(pd.concat([rows, _rows("c", [0.01])]), 0.05)
    assert (within, rows_) == (1, 11) and low < 1 / 11 < high


def test_rows_at_the_gate_s_precision_get_an_interval_over_their_configurations():
    """13 configurations of 24 rows, 10 all within the gate and 3 all beyond it: 77% of 312 rows, whose interval
    over the configurations is far wider than over 312 rows taken as independent."""
    gate = allocation.gate_half_width(0.05)
    rows = pd.concat([_rows(f"c{i}", [gate / 2 if i < 10 else 2 * gate] * 24) for i in range(13)])
    within, n, _, low, high = allocation.at_gate(rows, 0.05)
    assert (within, n) == (240, 312)
    binomial = wilson(240, 312)
    assert low < binomial[0] - 0.1 and high > binomial[1] + 0.05


def test_a_configuration_the_plan_leaves_is_held_to_its_processes():
    """Four configurations within the gate are 80% of the rows: the fifth is left as it ran, and its block holds
    it there (no share to reach, no processes to add)."""
    gate = allocation.gate_half_width(0.05)
    names = ["q1", "q2", "q3", "q4", "wide"]
    jobs = [_job(between=0.02, within=0.1, processes=5, rounds=30, job_s=300.0, config_id=n) for n in names]
    rows = pd.concat([_rows(n, [2 * gate if n == "wide" else gate / 2] * 10) for n in names])
    found = allocation.allocation_table(jobs, rows)
    plan, (p, r) = "\n".join(allocation.allocation_section(found)), found.iloc[-1][["processes_precise",
                                                                                      "rounds_precise"]]
    assert found.at_gate_precise.tolist() == [1, 1, 1, 1, 0]
    assert f"    wide: {{processes: {p}, rounds: {r}, max_processes: {p}}}" in plan
    assert f"    q1: {{processes: {p}, rounds: {r}, target_share: 1, max_processes: {math.ceil(1.5 * p)}}}" in plan


@pytest.mark.parametrize("planned, rows", [(23, 24), (199, 200), (7, 10), (24, 24), (1, 104)])
def test_the_plans_share_asks_for_exactly_the_planned_rows(planned, rows):
    """A share printed to two decimals would ask one row too few at 100 rows or more (0.99 of 200 is 198)."""
    share = float(allocation._share(planned / rows, rows))
    widths = [0.01] * planned + [0.1] * (rows - planned)
    assert enough_within(widths, 0.02, share) and not enough_within(widths[1:] + [0.1], 0.02, share)
    assert len(allocation._share(planned / rows, rows)) <= len(f"{planned / rows:.3f}")
