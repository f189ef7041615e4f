"""A study job's own Kalibera and Jones plan (report/tables/study_allocation.py): its variance parts read off its
processes' rounds, a round's cost off its samplers' wall, and the run summary's line where another number of
processes and rounds reaches the same precision in clearly less machine time."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from jaxpitfalls.report.tables.study_allocation import allocation_lines, variance_columns

PATTERN = np.array([0.1, -0.1, 0.1, -0.1, 0.0])  # every process's round log-ratios: no offset between processes


def _doc(processes: int, offsets: list[float] | None = None, walls: bool = True, waited_s: float = 0.0) -> dict:
    """A job of `processes` x 5 rounds of one mode, v against f; every round takes 1 s of wall (its samplers 0.8)."""
    offsets = offsets or [0.0] * processes
    f = [{"samples_s": [0.01] * 5} for _ in range(processes)]
    v = [{"samples_s": list(0.01 * np.exp(PATTERN + o))} for o in offsets]
    machine = {"rounds_kept": 5 * processes, "rounds_retried": 0}
    recorded = {"sampled_s": {"f": 2 * processes, "v": 2 * processes}, "rounds_s": 5.0 * processes,
                "waited_s": waited_s}
    return {"processes": processes, "comparisons": [{"variant": "v", "baseline": "f", "mode": "m"}],
            "variants": {"f": {"modes": {"m": {"processes": f}}}, "v": {"modes": {"m": {"processes": v}}}},
            "machine": {"m": machine | (recorded if walls else {})}}


def _checks(doc: dict, job_seconds: float) -> pd.DataFrame:
    """The checks table's row: the plan's columns, the job's seconds and its waits (job_checks.quietness's)."""
    return pd.DataFrame([{"config_id": "c", "processes": doc["processes"], "job_seconds": job_seconds}
                         | variance_columns(doc) | {"waited_s": sum(m.get("waited_s", 0.0)
                                                                  for m in doc["machine"].values())}])


def test_the_variance_parts_and_a_rounds_cost_come_from_the_jobs_own_rounds():
    found = variance_columns(_doc(4, offsets=[0.0, 0.0, 0.2, 0.2]))
    within = float(np.var(PATTERN, ddof=1))
    assert found["within_var"] == pytest.approx(within) and found["rounds_per_process"] == 5
    assert found["between_var"] == pytest.approx(np.var([0, 0, 0.2, 0.2], ddof=1) - within / 5)
    assert found["round_s"] == pytest.approx(1.0)  # 5 s of rounds a process over its 5 rounds, primers and all


def test_one_process_or_an_older_result_has_no_parts():
    assert all(math.isnan(x) for x in variance_columns(_doc(1)).values())
    assert all(math.isnan(x) for x in variance_columns(_doc(4, walls=False)).values())
    assert allocation_lines(_checks(_doc(1), 20.0)) == []


def test_processes_that_agree_are_spent_on_rounds_and_the_line_says_so():
    """8 processes of 10 s and 5 rounds of 1 s (120 s) where processes agree: the variance (within / 40) at the
    fewest processes a plan keeps (3) needs 14 rounds, 3 x (10 + 14) = 72 s; 4 x 10 would take 80 s."""
    (line, count) = allocation_lines(_checks(_doc(8), 120.0))
    assert line.startswith("`c`: 8 x 5 rounds in 120 s; 3 x 14 reach its variance in about 72 s")
    assert "a process 10.0 s, a round 1.00 s" in line
    assert count == "0 of 1 configurations within 10% of their cheapest plan"


def test_waiting_for_a_busy_machine_is_no_process_s_cost():
    """The same job having waited 180 s for quiet (a user's walk: its plan read a process at 66.8 s, mostly the
    wait): the same plan, the wait said apart."""
    (line, _) = allocation_lines(_checks(_doc(8, waited_s=180.0), 300.0))
    assert line.startswith("`c`: 8 x 5 rounds in 120 s (and 180 s waiting for quiet); 3 x 14 reach its variance in "
                           "about 72 s") and "a process 10.0 s" in line


def test_a_job_near_its_cheapest_plan_is_only_counted():
    """Processes that differ as much as rounds do: 2 x 5 is about the optimum, nothing to show."""
    assert allocation_lines(_checks(_doc(2, offsets=[0.0, 0.15]), 30.0)) == [
        "1 of 1 configurations within 10% of their cheapest plan"]


def test_a_job_whose_costs_make_no_plan_is_left_out():
    """Its rounds' wall over the job's (a process would cost nothing or less), or no job time recorded."""
    assert allocation_lines(_checks(_doc(2), 8.0)) == []
    assert allocation_lines(_checks(_doc(2), math.nan)) == []
