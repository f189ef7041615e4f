"""The calibration of the lockstep statistics, on a fake machine: a side slowed by a known fraction (the
calibration knob) adds that fraction of busy work to every sample; over many A/A and A/B rows the report counts
false alarms, coverage of the true factor and how often a known change is found, each with a Wilson interval
and against its target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_lockstep import BASE_S, Machine

from jaxpitfalls.harness.injected import SLOWDOWN_ENV, inject, injected_fraction, slowed
from jaxpitfalls.harness.lockstep import Side, in_lockstep
from jaxpitfalls.report import calibration, lockstep

SIDES = {"a": 0.0, "a2": 0.0, "b5": 0.05, "b10": 0.10}


class Clock:
    """A clock that advances 0.4 ms each time it is read."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 4e-4
        return self.t


def test_the_knob_adds_its_fraction_of_a_sample_as_work_and_refuses_a_nonsense_one():
    sample = slowed(lambda: 0.010, 0.10, clock=Clock())
    assert 0.011 <= sample() <= 0.0115  # 10 ms + at least 1 ms of busy work (read on the clock in 0.4 ms steps)
    assert injected_fraction({SLOWDOWN_ENV: "0.05"}) == 0.05 and injected_fraction({}) == 0.0
    with pytest.raises(ValueError, match="0 <= f < 1"):
        injected_fraction({SLOWDOWN_ENV: "1.5"})
    untouched = {"blocked": {"v": lambda: 0.01}}
    assert inject(untouched, 0.0) is untouched


class SlowedWorker:
    """One side's worker on the shared fake machine, its samples `1 + fraction` times the other's."""

    def __init__(self, machine: Machine, fraction: float) -> None:
        self.machine, self.fraction = machine, fraction
        self.description = {"modes": {"blocked": list(BASE_S)}, "environment": {"packages": {}},
                            "injected_slowdown": fraction}

    def block(self, mode: str, variant: str, samples: int) -> list[float]:
        return [self.machine.sample(BASE_S[variant] * (1 + self.fraction)) for _ in range(samples)]

    def close(self) -> None:
        pass


def _calibration_table(configs: int) -> pd.DataFrame:
    """Every side in lockstep on `configs` fake configurations (a machine each): A/A and 5% and 10% rows."""
    sides = [Side(name) for name in SIDES]
    docs = []
    for i in range(configs):
        machine = Machine(seed=i)
        timed = in_lockstep(sides, lambda side, process, m=machine: SlowedWorker(m, SIDES[side.name]),
                            processes=3, rounds=20, samples_per_block=1, seed=i)
        docs.append(lockstep.side_by_side({"study": "dispatch", "config_id": f"c{i}", "timed": timed}))
    return pd.concat(docs, ignore_index=True)


def test_false_alarms_coverage_and_power_are_counted_against_their_targets():
    table = _calibration_table(configs=25)
    assert sorted(table.injected.round(4).unique()) == [1.0, 1.05, 1.1]
    found = calibration.summary(table).set_index(["injected", "quantity"])
    aa, ten = found.loc[1.0], found.loc[1.1]
    assert aa.loc["flagged", "rows"] == 50 and aa.loc["flagged", "share"] <= 0.10
    assert aa.loc["covers", "share"] >= 0.85 and aa.loc["covers", "target"] == "92%-98%"
    assert ten.loc["regressed", "share"] >= 0.9 and ten.loc["regressed", "met"]
    assert found.loc[(1.05, "excludes_1"), "target"] == "80%-100%"
    low, high = found.loc[(1.0, "flagged"), ["share_low", "share_high"]]
    assert low <= found.loc[(1.0, "flagged"), "share"] <= high
    text = calibration.markdown(table, calibration.summary(table), 1234.0, "presets/calibrate.yaml")
    assert "over 50 rows" in text and "1234 s (20.6 min)" in text


@pytest.mark.parametrize(("k", "n", "expected"), [(0, 100, (0.0, 0.037)), (95, 100, (0.888, 0.978)),
                                                  (50, 100, (0.404, 0.596))])
def test_wilson_intervals(k, n, expected):
    assert np.allclose(calibration.wilson(k, n), expected, atol=1e-3)
