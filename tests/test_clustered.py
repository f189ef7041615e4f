"""The calibration's shares over rows that share their processes (harness/clustered.py): rows whose
margins move together by configuration count as fewer rows, independent rows count as themselves, a share whose
hits gather in some configurations counts them, and a share every row agrees on still gets an interval as wide as
its rows' clustering says."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t

from jaxpitfalls.harness import clustered
from jaxpitfalls.harness.stats import wilson

CONFIGS, PER = 13, 8


def _rows(shared: float, seed: int = 0, factor: float = 1.0) -> pd.DataFrame:
    """A lockstep table's rows of one injected factor: 13 configurations x 8 rows, each row's log error a normal
    of sd 1% in units of its half-width 2%, `shared` of its variance common to its configuration."""
    rng = np.random.default_rng(seed)
    common = np.repeat(rng.standard_normal(CONFIGS), PER) * np.sqrt(shared)
    error = 0.01 * (common + rng.standard_normal(CONFIGS * PER) * np.sqrt(1 - shared))
    ratio = factor * np.exp(error)
    return pd.DataFrame({"config_id": np.repeat([f"c{i}" for i in range(CONFIGS)], PER), "injected": factor,
                         "ratio": ratio, "ratio_ci_low": ratio * np.exp(-0.02), "ratio_ci_high": ratio * np.exp(0.02)})


def _effect(rows: pd.DataFrame, hits: pd.Series | None = None) -> float:
    """The design effect of covering 1 (the A/A rows' truth) over `rows`."""
    hits = pd.Series(False, index=rows.index) if hits is None else hits
    return clustered.design_effect(clustered.margins(rows, 1.0, 0.05)["covers"], hits, rows.config_id)


def test_rows_whose_margins_share_their_configuration_count_as_fewer_rows():
    independent = [_effect(_rows(0.0, seed)) for seed in range(20)]
    together = [_effect(_rows(0.9, seed)) for seed in range(20)]
    assert np.median(independent) < 1.5  # 1 + 7 rho, rho about 0
    assert 3 < np.median(together) < PER  # covering is cut from |error|: it clusters less than the error


def test_a_share_whose_hits_gather_in_some_configurations_clusters_more_than_its_margins():
    rows = _rows(0.0, seed=1)
    gathered = pd.Series(rows.config_id.isin(["c0", "c1", "c2"]).to_numpy())  # every row of 3 configurations
    scattered = pd.Series(np.arange(104) % PER < 2)  # 2 rows of every configuration
    assert _effect(rows, gathered) == pytest.approx(PER * 13 / 12, rel=0.01)
    assert _effect(rows, scattered) < 1.5


def test_a_share_no_row_shows_is_as_uncertain_as_its_rows_clustering():
    rows = _rows(0.9, seed=2)
    effective = clustered.effective_rows(104, _effect(rows), CONFIGS)
    low, high = clustered.interval(0, 104, effective)
    assert effective < 104 / 3 and low == 0 and high > wilson(0, 104)[1] * 2  # wider than 104 independent rows
    assert (low, high) == pytest.approx(wilson(0, effective))
    assert clustered.effective_rows(104, 1.0, CONFIGS) == pytest.approx(104 * (1.96 / 2.179) ** 2, rel=1e-3)


def test_a_margin_is_positive_exactly_where_its_event_is_shown():
    rows = _rows(0.0, seed=3, factor=1.08).assign(ratio_ci_low=lambda r: r.ratio / 1.02,
                                                  ratio_ci_high=lambda r: r.ratio * 1.02)
    found = clustered.margins(rows, 1.08, 0.05)
    assert ((found["regressed"] > 0) == (rows.ratio_ci_low > 1.05)).all()
    assert ((found["covers"] > 0) == ((rows.ratio_ci_low < 1.08) & (1.08 < rows.ratio_ci_high))).all()
    assert ((found["excludes_1"] > 0) == (rows.ratio_ci_low > 1)).all()


def test_a_mean_over_clusters_has_an_interval_as_wide_as_its_clusters_make_it():
    """Values that differ only between clusters: the interval is the cluster means' t interval (n - 1 df); one
    cluster gives none."""
    values = pd.Series([0.1] * 4 + [0.3] * 4 + [0.2] * 4)
    clusters = pd.Series(["a"] * 4 + ["b"] * 4 + ["c"] * 4)
    mean, low, high = clustered.mean_interval(values, clusters)
    means = np.array([0.1, 0.3, 0.2])
    half = t.ppf(0.975, 2) * means.std(ddof=1) / np.sqrt(3)
    assert mean == pytest.approx(0.2) and (low, high) == pytest.approx((0.2 - half, 0.2 + half))
    assert clustered.mean_interval(values, pd.Series(["a"] * 12))[1:] == (-math.inf, math.inf)
