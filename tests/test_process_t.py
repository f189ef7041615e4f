"""A lockstep row's statistics over fresh processes (comparison/process_t.py), on simulated rows of 5 processes x
30 rounds: the interval covers 95% of A/A rows whether the processes agree or are offset by 2%, at most 1.3 times as
wide as a bootstrap of their rounds pooled where they agree; the p-value agrees with the interval, and the gate reads
each row's own degrees of freedom; a change of the detectable size is found in about 80% of rows; one process gives no
interval."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from jaxpitfalls.across_runs.comparison import familywise, process_t
from jaxpitfalls.across_runs.comparison.process_t import process_logs
from jaxpitfalls.harness import moderated
from jaxpitfalls.harness.stats import paired_comparison, relative_half_width


def _interval(side, first) -> dict:
    """One lockstep row on its own spread (processes - 1 degrees of freedom), as the calibrated rows were."""
    return process_t.as_row(moderated.estimate(process_logs(side, first)))


def _rows(offset: float, rows: int, seed: int = 1, log_ratio: float = 0.0):
    """`rows` lockstep rows of 5 processes x 30 rounds: 3% log-normal noise a round on each side, and each fresh
    process of the second side off by its own log-normal `offset` (another core, another memory layout)."""
    rng = np.random.default_rng(seed)
    for _ in range(rows):
        first = [np.exp(0.03 * rng.standard_normal(30)) for _ in range(5)]
        side = [np.exp(0.03 * rng.standard_normal(30) + offset * rng.standard_normal() + log_ratio)
                for _ in range(5)]
        yield side, first


@pytest.mark.parametrize("offset", [0.0, 0.02])
def test_the_interval_keeps_its_95_percent_whether_fresh_processes_agree_or_differ(offset):
    rows = [_interval(side, first) for side, first in _rows(offset, 400)]
    covered = np.mean([c["ratio_ci_low"] <= 1 <= c["ratio_ci_high"] for c in rows])
    assert 0.92 <= covered <= 0.98, covered
    flagged = np.mean([c["p_value"] < 0.05 for c in rows])
    assert flagged == pytest.approx(1 - covered)  # the p-value and the interval agree on every row


def test_where_processes_agree_the_interval_is_about_as_wide_as_a_bootstrap_of_their_rounds_pooled():
    """Where no process is offset, every round is an independent unit and a bootstrap over all of them is right;
    the t-interval over the processes pays little for also holding where they are offset."""
    rows = list(_rows(0.0, 30, seed=2))
    ours = np.median([relative_half_width(_interval(s, f)) for s, f in rows])
    pooled = np.median([relative_half_width(paired_comparison(np.concatenate(s), np.concatenate(f))) for s, f in rows])
    assert ours <= 1.3 * pooled, (ours, pooled)  # 1.24 here: t on 4 degrees of freedom, not 1.96


def test_a_change_of_the_detectable_size_is_found_in_about_80_percent_of_rows():
    sd = np.sqrt(np.mean([_interval(s, f)["log_sd"] ** 2 for s, f in _rows(0.02, 200, seed=3)]))
    detectable = process_t.detectability(sd, 5, 0.05)["detectable_change"]
    found = [_interval(s, f)["ratio_ci_low"] > 1
             for s, f in _rows(0.02, 400, seed=4, log_ratio=math.log1p(detectable))]
    assert 0.72 <= np.mean(found) <= 0.88, (detectable, np.mean(found))


def test_what_would_tell_the_threshold_is_counted_in_processes():
    found = process_t.detectability(0.03, 5, 0.05)
    needed = found["processes_needed"]
    assert found["detectable_change"] > 0.05 and needed > 5
    assert process_t.detectability(0.03, needed, 0.05)["detectable_change"] <= 0.05
    assert process_t.detectability(0.03, needed - 1, 0.05)["detectable_change"] > 0.05
    assert found["samples_factor"] == pytest.approx(needed / 5)
    assert process_t.detectability(0.001, 5, 0.05) | {"detectable_change": 0} == {
        "detectable_change": 0, "samples_factor": 1.0, "processes_needed": 2}
    assert process_t.detectability(math.nan, 1, 0.05)["processes_needed"] is None


def test_one_process_or_processes_that_agree_to_the_bit_give_a_ratio_but_no_interval():
    (side, first), = _rows(0.0, 1)
    one = _interval(side[:1], first[:1])
    assert one["ratio_ci_low"] == 0 and one["ratio_ci_high"] == np.inf and one["p_value"] == 1
    assert one["ratio"] == pytest.approx(np.exp(np.median(np.log(side[0] / first[0]))))
    same = _interval([[1.1, 1.1]] * 3, [[1.0, 1.0]] * 3)
    assert same["ratio"] == pytest.approx(1.1) and same["ratio_ci_high"] == np.inf and same["p_value"] == 1


def test_the_gate_reads_each_rows_own_degrees_of_freedom():
    """A t-interval read as a normal one would claim too much: a row whose log-ratio is 5 standard errors above the
    threshold's over 5 processes has p = 0.0037 on its own 4 degrees of freedom; read as normal, 0.0002."""
    edge = np.log(1.05)
    logs = edge + 0.05 + 0.02825 * np.array([-1, -0.5, 0, 0.5, 1])  # each process's median log-ratio: t = 5
    row = _interval([[np.exp(x)] for x in logs], [[1.0]] * 5)
    assert row["df"] == 4
    p = familywise.p_beyond(row["ratio"], row["ratio_ci_low"], row["ratio_ci_high"], 0.05, row["df"])
    assert p == pytest.approx(0.0037, abs=3e-4)
    assert familywise.p_beyond(row["ratio"], row["ratio_ci_low"], row["ratio_ci_high"], 0.05) < 0.001
    table = pd.DataFrame([row | {"verdict": "regressed"}]
                         + [{"ratio": 1.0, "ratio_ci_low": 0.9, "ratio_ci_high": 1.1, "df": 4.0,
                             "verdict": "unchanged"}] * 19)
    assert not familywise.surviving(table, "ratio", 0.05).any()  # 0.0037 > 1/20 x 0.05
    assert familywise.surviving(table.drop(columns="df"), "ratio", 0.05).iloc[0]  # what reading it as normal gave
