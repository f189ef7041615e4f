"""The k-th job of every release runs in block k: what a block shares (a slower hour, a run resumed the next day)
moves all its jobs alike, and is taken out before the spread between jobs is estimated, so that it neither widens
every release's interval nor, where a release lost a job, moves that release's level."""

from __future__ import annotations

import numpy as np
import pandas as pd

from jaxpitfalls.across_runs.history import history
from jaxpitfalls.across_runs.history.history import fitted
from jaxpitfalls.across_runs.history.release_levels import job_logs, release_levels, series_logs

RELEASES = [f"r{r}" for r in range(6)]
ENVS = {r: {"packages": {"p": r}} for r in RELEASES}  # what each release's result recorded


def _table(y: dict[tuple[int, int], float], se: float = 0.01) -> pd.DataFrame:
    """A history's job table of one series: (release, job) -> log ratio, each job's own standard error `se`."""
    return pd.DataFrame([{"release": f"r{r}", "job": j, "config_id": "base", "variant": "v", "baseline": "floor",
                          "mode": "m", "ratio": np.exp(v), "ratio_ci_low": np.exp(v - 1.96 * se),
                          "ratio_ci_high": np.exp(v + 1.96 * se), "versions": ""} for (r, j), v in y.items()])


def _series(y: dict[tuple[int, int], float]) -> pd.DataFrame:
    return job_logs(_table(y))


def without_blocks(series: pd.DataFrame) -> tuple[np.ndarray, int]:
    """One series' log ratios less their blocks' offsets, and the df taken."""
    ((_, _, y, taken, _),) = series_logs(series)
    return y, taken


def _steps(ratios: pd.DataFrame) -> list[tuple[str, str]]:
    return [(s.before, s.after) for _, _, fit in fitted(release_levels(ratios), RELEASES) for s in fit.steps]


def test_a_block_s_offset_is_taken_out_and_the_step_it_hid_is_named():
    """Every release's first job 4% above its second (equinox's history, resumed a day later: 2-9%), a 5% step at
    the fourth release: read as spread between jobs, the blocks hide the step; taken out, it is named, the
    levels' intervals are the jobs' own, and the report says the blocks were taken out."""
    rng = np.random.default_rng(0)
    y = {(r, j): (0.05 if r >= 3 else 0.0) + (0.02 if j == 1 else -0.02) + rng.normal(0, 0.005)
         for r in range(6) for j in (1, 2)}
    ratios = _table(y)
    assert _steps(ratios) == [("r2", "r3")]
    assert _steps(ratios.drop(columns="job")) == []  # the same jobs, their blocks unknown
    levels = release_levels(ratios)  # two jobs' own 1% errors, nothing added
    assert np.allclose(np.log(levels.ratio_ci_high / levels.ratio_ci_low), 2 * 1.96 * 0.01 / np.sqrt(2), rtol=1e-3)
    steps = history.steps_table(levels, RELEASES, "p", ENVS)
    assert "In 1 of 1 series the blocks" in history.jobs_line(steps, 2)
    assert "blocks" not in history.jobs_line(history.steps_table(release_levels(ratios.drop(columns="job")),
                                                                 RELEASES, "p", ENVS), 2)


def test_blocks_move_no_level_where_every_release_has_a_job_in_each_and_a_lost_job_s_release_keeps_its_place():
    """Levels 0, 0.1, 0.2 with block offsets +0.05 and -0.05 and no other noise: the deviations left are nil and
    each release's mean is its level; the first release's first job lost, its one job still reads 0, not -0.05."""
    y = {(r, j): 0.1 * r + (0.05 if j == 1 else -0.05) for r in range(3) for j in (1, 2)}
    adjusted, taken = without_blocks(_series(y))
    assert taken == 1 and np.allclose(adjusted, np.repeat([0.0, 0.1, 0.2], 2))
    lost = _series({k: v for k, v in y.items() if k != (0, 1)})
    adjusted, taken = without_blocks(lost)
    assert taken == 1 and np.allclose(adjusted, [0.0, 0.1, 0.1, 0.2, 0.2])


def test_blocks_within_their_noise_are_pooled():
    """Blocks 0.2% apart among jobs scattering 1%: their F test cannot tell them from the scatter (p >= 0.25), so
    they stay in the spread between jobs and no degree of freedom is spent on them (Bancroft's rule); 3% apart,
    they are taken out."""
    rng = np.random.default_rng(1)
    noise = {(r, j): rng.normal(0, 0.01) for r in range(6) for j in (1, 2)}
    for apart, taken in ((0.002, 0), (0.03, 1)):
        series = _series({(r, j): v + (apart if j == 1 else 0.0) for (r, j), v in noise.items()})
        assert without_blocks(series)[1] == taken
        if not taken:
            assert np.array_equal(without_blocks(series)[0], series.y.to_numpy())


def test_blocks_are_left_alone_where_they_cannot_be_told_from_the_releases():
    """One job a release (one block each), one block, no `job` column, or a block only a one-job release ran in:
    nothing taken."""
    one_job = _series({(r, 1): 0.01 * r for r in range(4)})
    assert without_blocks(one_job)[1] == 0
    apart = _series({(0, 1): 0.0, (1, 2): 0.1})  # each release in its own block: blocks are the releases
    assert without_blocks(apart)[1] == 0
    assert without_blocks(one_job.drop(columns="job"))[1] == 0
    assert np.allclose(without_blocks(apart)[0], [0.0, 0.1])
    confounded = _series({**{(r, j): 0.1 * r + 0.01 * j for r in range(3) for j in (1, 2)}, (3, 3): 0.5})
    assert without_blocks(confounded)[1] == 0  # block 3 holds one release's one job: its offset is that release's

