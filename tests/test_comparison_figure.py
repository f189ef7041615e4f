"""A comparison's figure: the rows measured on both sides, each with its interval and verdict; at most MOST_ROWS a
panel (those that moved kept), a row without an interval said so, and a comparison with no row says that."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from jaxpitfalls.across_runs.comparison import figure
from jaxpitfalls.across_runs.comparison.compare import verdict


def _table(ratios: list[float], half: float = 0.03) -> pd.DataFrame:
    table = pd.DataFrame({"study": "s", "config_id": [f"c{i}" for i in range(len(ratios))], "variant": "jit",
                          "mode": "blocked", "ratio": ratios})
    table["ratio_ci_low"], table["ratio_ci_high"] = table.ratio * (1 - half), table.ratio * (1 + half)
    table["verdict"] = [verdict(lo, hi, 0.05) for lo, hi in zip(table.ratio_ci_low, table.ratio_ci_high, strict=True)]
    return table


def _labels(fig) -> list[list[str]]:
    return [[t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes]


def test_rows_on_one_side_are_left_out_and_a_row_without_interval_is_named():
    table = _table([1.0, 1.2, 0.9])
    table.loc[2, ["ratio_ci_low", "ratio_ci_high", "verdict"]] = [0.0, math.inf, "inconclusive"]
    table = pd.concat([table, pd.DataFrame([{"study": "s", "config_id": "new", "variant": "jit", "mode": "blocked",
                                             "verdict": "only in current"}])], ignore_index=True)
    fig = figure.two_runs(table, pd.DataFrame(), 0.05)
    assert _labels(fig) == [["c0", "c1", "c2 (no interval)"]]  # what every row shares is not repeated
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["regressed", "unchanged", "inconclusive"]
    low, high = fig.axes[0].get_xlim()
    assert low < 0.95 and 1.2 * 1.03 < high <= 1.4  # the band and every interval drawn, an infinite one not


def test_a_long_table_keeps_the_rows_that_moved_and_says_how_many_it_shows():
    ratios = list(1 + np.random.default_rng(0).normal(0, 0.01, figure.MOST_ROWS + 20))
    ratios[70] = 1.5  # moved, near the end
    fig = figure.two_runs(_table(ratios), pd.DataFrame(), 0.05)
    shown = _labels(fig)[0]
    assert len(shown) == figure.MOST_ROWS and "c70" in shown
    assert f"({figure.MOST_ROWS} of {figure.MOST_ROWS + 20} rows" in fig.axes[0].get_title(loc="left")


def test_a_lockstep_names_its_sides_and_an_empty_comparison_says_so():
    table = _table([1.0, 1.1]).assign(side="head", against="base")
    fig = figure.lockstep(table, 0.05)
    assert fig.axes[0].get_xlabel().startswith("head / base")
    empty = figure.lockstep(table.iloc[:0], 0.05)
    assert [t.get_text() for t in empty.axes[0].texts] == ["No row measured on both sides"]


def test_rows_inside_the_band_keep_a_close_axis():
    """A walk's four rows within 0.99-1.09 were drawn on 0.5-2: the locator's tick at the band's edge, 0.95, came
    out a float's last bit above it, and the axis fell back to 1-2-5 steps."""
    table = pd.DataFrame({"study": "s", "config_id": "c", "variant": ["fused", "eager"], "mode": "blocked",
                          "ratio": [1.031, 1.055], "ratio_ci_low": [0.989, 1.023], "ratio_ci_high": [1.075, 1.0867],
                          "verdict": "inconclusive"})
    low, high = figure.two_runs(table, pd.DataFrame(), 0.05).axes[0].get_xlim()
    assert 0.9 <= low <= 0.95 + 1e-9 and 1.0867 <= high <= 1.15  # the band's edge, a last bit either way
