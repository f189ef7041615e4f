"""One row slowed among unchanged ones on a calibration's rows (across_runs/calibration/gate_power.py): the share the
gate names is set against what every gate line states of its own rows, over the configurations the slowed rows
came from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jaxpitfalls.across_runs.calibration.gate_power import spike_lines, spike_table
from jaxpitfalls.across_runs.comparison.compare import verdict


def _side(name: str, injected: float, rng: np.random.Generator, rows: int = 48, se: float | np.ndarray = 0.02
          ) -> pd.DataFrame:
    y = np.log(injected) + rng.normal(0, se, rows)
    side = pd.DataFrame({"study": "s", "config_id": [f"c{i % 12}" for i in range(rows)],
                         "variant": [f"v{i}" for i in range(rows)], "mode": "m", "side": name, "injected": injected,
                         "ratio": np.exp(y), "ratio_ci_low": np.exp(y - 1.96 * se),
                         "ratio_ci_high": np.exp(y + 1.96 * se)})
    return side.assign(verdict=[verdict(lo, hi, 0.05) for lo, hi in zip(side.ratio_ci_low, side.ratio_ci_high,
                                                                       strict=True)])


def test_the_share_named_is_set_against_the_share_stated_with_its_interval():
    rng = np.random.default_rng(4)
    table = pd.concat([_side("a2", 1.0, rng), _side("b10", 1.10, rng), _side("b5", 1.05, rng)], ignore_index=True)
    spikes = spike_table(table, 0.05)
    assert list(spikes.rows) == [48, 16, 48] and list(spikes.spiked_tables) == [48, 200, 48]
    assert list(spikes.declared) == [False, False, True]
    assert spikes.stated_share.iloc[2] > spikes.stated_share.iloc[1]  # its configuration's 4 rows declared: 0.04 / 4
    assert (spikes.named_low <= spikes.named_share).all() and (spikes.named_share <= spikes.named_high).all()
    assert (abs(spikes.named_share - spikes.stated_share) < 0.15).all()  # honest intervals: they agree
    assert spikes.stated_share.iloc[1] > spikes.stated_share.iloc[0]  # fewer rows, a lighter correction
    assert set(spikes.agrees) <= {"yes", "by its point", "no", "cannot tell"}
    paired = spikes.named_less_stated
    assert (spikes.named_less_stated_low <= paired).all() and (paired <= spikes.named_less_stated_high).all()
    assert paired.to_numpy() == pytest.approx((spikes.named_share - spikes.stated_share).to_numpy())
    said = spike_lines(spikes)[0]
    assert "One row slowed 10% among unchanged ones" in said and "named less stated" in said
    assert "among 48 rows with the slowed row's configuration declared primary (48 spiked tables" in said
    assert spike_table(table[table.side != "b10"], 0.05) is None and spike_lines(None) == []


def test_each_trial_set_against_its_own_stated_chance_tells_more_where_rows_differ_in_precision():
    """Rows of 0.5% and of 5% standard error: a precise row slowed 10% is named almost surely, a loose one almost
    never, and each is stated so; set trial by trial, the difference's interval is far narrower than the named
    share's, which holds how the rows differ."""
    rng = np.random.default_rng(5)
    se = np.array([0.005, 0.05] * 24)
    table = pd.concat([_side("a2", 1.0, rng, se=se), _side("b10", 1.10, rng, se=se)], ignore_index=True)
    spikes = spike_table(table, 0.05)
    width = spikes.named_less_stated_high - spikes.named_less_stated_low
    assert (width < 0.6 * (spikes.named_high - spikes.named_low)).all()
