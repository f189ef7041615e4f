"""Split-process replication (across_runs/calibration/between_processes.py): a job's rows estimated on disjoint
halves of its processes differ beyond their interval in about 5% of rows where the intervals hold, and in more where
they are too narrow; and the A/A rows' coverage by third of their own spread: alike rows cover about 95% in every
third, a row three times as noisy as its job's others less, which the coverage over all rows hides."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.linalg import helmert

from jaxpitfalls.across_runs.calibration import between_processes
from jaxpitfalls.across_runs.calibration.between_processes import THIRD_TARGET, THIRDS


def _table(spreads: np.ndarray, processes: int, configs: int = 16, seed: int = 0) -> pd.DataFrame:
    """A lockstep table of `configs` jobs: one row per spread, each process's log-ratio drawn around a row's own
    truth with that spread (a process's offset shared by its rows too)."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(configs):
        truth = rng.normal(0, 0.1, len(spreads))[:, None]
        logs = truth + spreads[:, None] * rng.standard_normal((len(spreads), processes)) \
            + 0.01 * rng.standard_normal(processes)
        rows += [{"config_id": f"c{c}", "process_log_ratios": ";".join(f"{x:.6g}" for x in r)} for r in logs]
    return pd.DataFrame(rows)


def _jobs(spreads: np.ndarray, processes: int) -> list[tuple[str, np.ndarray]]:
    return between_processes.lockstep_jobs(_table(spreads, processes))


def test_halves_differ_beyond_their_interval_in_about_5_percent_where_the_intervals_hold():
    found = between_processes.split_share(between_processes.split_margins(_jobs(np.full(12, 0.02), processes=6)))
    assert found["rows"] == 16 * 12 and found["splits"] == 10 and found["comparisons"] == 16 * 12 * 10
    assert found["jobs"] == 16 and found["processes"] == (6,) and found["effective"] < found["comparisons"]
    assert between_processes.SPLIT_TARGET[0] <= found["share"] <= between_processes.SPLIT_TARGET[1]
    assert found["share_low"] >= 0.03  # 16 jobs of 12 alike rows confirm it
    assert "Target 3%-7%: met. Where" in between_processes.split_line(found)


def test_a_job_s_kinds_estimated_apart_count_as_one_job_of_clustered_rows():
    """The studies' jobs split by kind (`job#part`) share their processes: one cluster, not two."""
    jobs = _jobs(np.full(12, 0.02), processes=6)
    parts = [(f"{name}#{k}", logs[k * 6:(k + 1) * 6]) for name, logs in jobs for k in range(2)]
    whole, split = (between_processes.split_share(between_processes.split_margins(j)) for j in (jobs, parts))
    assert split["jobs"] == whole["jobs"] == 16 and split["rows"] == whole["rows"]


def test_intervals_narrower_than_the_spread_between_processes_gives_fail_the_check(monkeypatch):
    """An estimator whose intervals are 60% of what the processes' spread gives: the halves differ beyond them far
    more often than 5%, and the page says the target was missed."""
    pooled = between_processes.moderated.pooled

    def narrowed(rows):
        return [dataclasses.replace(e, low=e.mean - 0.6 * (e.mean - e.low), high=e.mean + 0.6 * (e.high - e.mean))
                for e in pooled(rows)]

    monkeypatch.setattr(between_processes.moderated, "pooled", narrowed)
    found = between_processes.split_share(between_processes.split_margins(_jobs(np.full(12, 0.02), processes=6)))
    assert found["share_low"] > between_processes.SPLIT_TARGET[1]
    assert "Target 3%-7%: **missed**." in between_processes.split_line(found)


@pytest.mark.parametrize("processes", [2, 3])
def test_jobs_of_fewer_than_four_processes_are_not_split(processes):
    margins = between_processes.split_margins(_jobs(np.full(4, 0.02), processes=processes))
    assert margins.empty and between_processes.split_share(margins) == {}
    assert "no job had 4 or more processes" in between_processes.split_line({})


def test_every_split_puts_half_the_processes_on_one_side_each_partition_once():
    assert list(between_processes.splits(4)) == [([0, 1], [2, 3]), ([0, 2], [1, 3]), ([0, 3], [1, 2])]
    assert len(list(between_processes.splits(5))) == 10 and len(list(between_processes.splits(6))) == 10
    assert len(between_processes.splits(8)) == 35 == between_processes.MAX_SPLITS


def test_a_job_of_many_processes_is_judged_on_as_many_splits_as_one_of_eight():
    """15 processes split 6435 ways: MAX_SPLITS of them, distinct, the same each time."""
    drawn = between_processes.splits(15)
    assert len(drawn) == between_processes.MAX_SPLITS == len({tuple(half) for half, _ in drawn})
    assert all(len(half) == 7 and sorted(half + rest) == list(range(15)) for half, rest in drawn)
    assert drawn == between_processes.splits(15)


def test_a_table_that_kept_no_process_values_is_not_judged():
    assert between_processes.split_measured(pd.DataFrame({"config_id": ["c0"], "ratio": [1.0]})) is None
    assert between_processes.split_measured(_table(np.full(4, 0.02), processes=4))["splits"] == 3


def _exact(own: tuple[float, ...], processes: int) -> np.ndarray:
    """A job's rows x processes whose spreads read exactly `own` and no shared offset: orthogonal contrasts."""
    return np.sqrt(processes - 1) * helmert(processes)[:len(own)] * np.array(own)[:, None]


def _aa_table(logs: np.ndarray, jobs: int = 4, injected: float = 1.0) -> pd.DataFrame:
    return pd.DataFrame([{"study": "s", "config_id": f"c{j}", "side": "b", "injected": injected,
                          "processes": logs.shape[1], "process_log_ratios": ";".join(f"{x:.9g}" for x in row)}
                         for j in range(jobs) for row in logs])


def test_the_spreads_of_exact_contrasts_read_as_given():
    shared, own = between_processes.spreads(_exact((0.01, 0.02, 0.03), 5))
    assert shared == pytest.approx(0.0, abs=1e-9) and list(own) == pytest.approx([0.01, 0.02, 0.03])


def _job(own: tuple[float, ...], processes: int, rng: np.random.Generator) -> np.ndarray:
    """A job's per-process log-ratios: an offset of sd 2% every row shares, each row's own of sd `own`."""
    spread = np.array(own)[:, None]
    return 0.02 * rng.standard_normal(processes) + 0.05 + rng.standard_normal((len(own), processes)) * spread


@pytest.mark.parametrize("own", [(0.01, 0.04), (0.01, 0.01, 0.01, 0.04)])
def test_spreads_read_each_rows_own_and_the_offset_its_rows_share(own):
    """The spreads the edge runs and the thirds draw from, read off a job of many processes: the offset its rows
    share and each row's own about it, a noisy row's apart from a quiet one's even in a job of two rows."""
    shared, found = between_processes.spreads(_job(own, 20000, np.random.default_rng(3)))
    assert shared == pytest.approx(0.02, rel=0.05) and list(found) == pytest.approx(own, rel=0.1)


def test_spreads_read_the_shared_and_a_noisy_rows_variance_without_bias_at_5_processes():
    rng = np.random.default_rng(3)
    found = [between_processes.spreads(_job((0.01, 0.01, 0.01, 0.04), 5, rng)) for _ in range(4000)]
    assert np.mean([s ** 2 for s, _ in found]) == pytest.approx(0.02 ** 2, rel=0.08)
    assert np.mean([o[-1] ** 2 for _, o in found]) == pytest.approx(0.04 ** 2, rel=0.08)


def test_alike_rows_cover_about_95_percent_in_every_third():
    thirds = between_processes.row_thirds(_aa_table(_exact((0.02, 0.02, 0.02), 5)), draws=400)
    assert list(thirds.index) == list(THIRDS) and thirds.share.between(0.93, 0.97).all(), thirds
    assert (thirds.rows == 1600).all() and (thirds.low < thirds.share).all() and (thirds.share < thirds.high).all()
    assert "(target 92%-98% in each: met" in between_processes.thirds_words(thirds)


def test_a_row_three_times_as_noisy_as_its_jobs_others_is_under_covered_and_said_so():
    """Pooling pulls the noisy row's spread toward its job's: its interval too narrow, the quiet rows' too wide."""
    thirds = between_processes.row_thirds(_aa_table(_exact((0.01, 0.01, 0.03), 5)))
    assert thirds.share[THIRDS[2]] < THIRD_TARGET[0] and thirds.share[THIRDS[0]] > 0.95, thirds
    line = between_processes.thirds_line(thirds)  # below the target by its point: not met, its interval said
    assert "in each: cannot tell)" in line and f"the noisiest {thirds.share[THIRDS[2]]:.1%} [" in line


@pytest.mark.parametrize("processes", [4, 5, 9, 12, 16])
def test_splits_are_every_partition_once_or_a_seeded_draw_of_them_as_if_enumerated(processes):
    """Drawn by rank, not enumerated (a job of 26 processes has 5 million): the same splits an enumeration draws."""
    every = [(list(h), [i for i in range(processes) if i not in h])
             for h in itertools.combinations(range(processes), processes // 2) if processes % 2 or 0 in h]
    if len(every) > between_processes.MAX_SPLITS:
        drawn = np.random.default_rng(processes).choice(len(every), between_processes.MAX_SPLITS, replace=False)
        every = [every[i] for i in sorted(drawn)]
    assert between_processes.splits(processes) == every


@pytest.mark.parametrize(("rows", "thirds"), [(1, [1]), (2, [0, 2]), (3, [0, 1, 2]), (4, [0, 1, 1, 2]),
                                              (5, [0, 0, 1, 2, 2]), (6, [0, 0, 1, 1, 2, 2])])
def test_a_jobs_rows_fall_in_thirds_alike_from_either_end(rows, thirds):
    assert list(between_processes.thirds_of(np.arange(rows)[::-1])) == thirds[::-1]


def test_no_a_a_job_of_two_processes_and_two_rows_gives_no_thirds():
    assert between_processes.row_thirds(_aa_table(_exact((0.02, 0.02), 5), injected=1.1)) is None
    assert between_processes.row_thirds(_aa_table(_exact((0.02, 0.02), 5)).assign(processes=1)) is None
    assert between_processes.row_thirds(_aa_table(_exact((0.02,), 5))) is None  # one row: no quietest or noisiest
    assert between_processes.row_thirds(_aa_table(_exact((0.02, 0.02), 5)).drop(columns="process_log_ratios")) is None


def test_a_share_beyond_its_target_is_never_printed_as_the_targets_own_bound():
    assert between_processes.shown(0.98004, (0.92, 0.98)) == "98.00%"
    assert between_processes.shown(0.9799, (0.92, 0.98)) == "98.0%"
    assert between_processes.shown(0.9512, (0.92, 0.98)) == "95.1%"
