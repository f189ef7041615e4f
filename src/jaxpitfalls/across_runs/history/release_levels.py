"""A release timed in several jobs (`history.repeats`): one level per release, the spread between jobs in it.

A job's interval covers what varies inside the job (rounds, fresh worker processes); it cannot cover what the
whole job shares: a first job that ran while the machine was still settling, a venv's file cache, the model
read once. Timed once, one release's offset in its job looks like a step (the null history's safetensors
0.4.1: 1.051x at the series' edge). Timed in two jobs or more, the jobs of one release disagree by that
offset: the spread between jobs beyond their own intervals is estimated per series (method of moments,
unweighted, pooled over the releases timed more than once), and each release's variance gets the larger of
that pooled spread and its own jobs' excess, so that one bad job widens its own release and is not diluted
among the others. A spread estimated from a few releases' jobs is itself uncertain: where it is above zero, the
level's variance is in effect the jobs' own scatter, so its interval takes Student's t on the degrees of freedom
that scatter was estimated from (`df`: the releases' jobs less one each, summed), and the fit over releases tests
on them too (changepoints.fit_steps); treated as known, a spread from six pairs of jobs let simulated null
histories name a step in 8-16% of cases where a job's offset matched or exceeded its reported error, 0-2% on its
degrees of freedom (docs/decisions.md). A release whose own jobs scatter more than the pooled spread takes its
own excess, still on the pooled degrees of freedom: an approximation, conservative in the variance.

The k-th job of every release runs in block k (releases.run_order), so what a block shares (a slower hour, a run
stopped and resumed later) moves every release's k-th job alike. It cancels from the releases' means,
but read as spread between jobs it would widen every interval, and a resumed equinox history hid a step it had
named before. So each block's offset is taken out first (`without_blocks`, one degree of freedom a block beyond
the first), as a randomized block design is read, where the blocks differ beyond the jobs' scatter; within it
they are pooled, so that a history without them keeps its power (docs/decisions.md#blocks-in-the-history).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import f as f_dist

from ...harness.stats import log_standard_error
from .changepoints import upper_quantile

SERIES = ["config_id", "variant", "baseline", "mode"]
LEVEL_COLUMNS = ["release", *SERIES, "jobs", "ratio", "ratio_ci_low", "ratio_ci_high", "between_jobs", "df",
                 "blocks_taken", "detectable_change", "versions"]


Z_POWER_80 = 0.84
POOL_BELOW = 0.25  # blocks are taken out where their F test's p is below this, else pooled (Bancroft's rule)


def detectable_change(low: float, high: float, df: float = np.inf) -> float:
    """The smallest relative change a 95% interval low..high, built on Student's t with `df` degrees of freedom
    (normal where infinite), tells from none with 80% power: how much a release's, or a job's, measurement could
    see."""
    t = upper_quantile(0.025, df)
    se = (np.log(high) - np.log(low)) / (2 * t) if low > 0 and high > 0 else np.inf
    power = Z_POWER_80 if np.isinf(df) else upper_quantile(0.20, df)
    return float(np.expm1((t + power) * se))


def _positions(release: pd.Series) -> dict[str, np.ndarray]:
    """Each release's rows (positions) in one series' job table, in order of appearance: numpy reduces a
    release's few jobs faster than pandas hands out their group, and simulated histories fit thousands."""
    codes, names = pd.factorize(release)
    return {name: np.flatnonzero(codes == i) for i, name in enumerate(names)}


def _excess(y: np.ndarray, var: np.ndarray) -> float:
    """One release's variance between its jobs (log ratios `y`, own variances `var`) beyond their own (log
    scale; negative where they agree better than their intervals say)."""
    return float(np.var(y, ddof=1) - var.mean())


def without_blocks(series: pd.DataFrame) -> tuple[np.ndarray, int]:
    """The jobs' log ratios `y` less what their block added to each (`job`: the k-th job of every release runs in
    block k, releases.run_order), and the degrees of freedom that took (the blocks less one). The blocks' offsets
    are fitted by least squares beside one level per release, centred on their mean (a release timed in every
    block keeps its mean), and each job's deviation from its release's mean is scaled up by the degrees of
    freedom the offsets took, so that the spread between jobs estimated from what is left is unbiased (before
    the test below, which takes blocks out where the jobs happen to agree: the simulated null histories go
    through it). Unchanged (0 taken) where the blocks are within the jobs' scatter (their F test's p not below
    `POOL_BELOW`: Bancroft's sometimes-pool rule, so that a history without them keeps its power), or cannot be
    told from the releases or leave no degree of freedom: one block, no release timed in two, no `job` column.
    A release that lost a job keeps the error of the offset taken from it, which its variance leaves out (at
    two blocks, about a tenth of a job's variance where five releases have both)."""
    y = series.y.to_numpy()
    if "job" not in series:
        return y, 0
    releases, blocks = pd.factorize(series.release)[0], pd.factorize(series.job)[0]
    n, k = releases.max() + 1, blocks.max() + 1
    design = np.column_stack([np.eye(n)[releases], np.eye(k)[blocks][:, 1:]])
    dof = y.size - n
    if k < 2 or dof - (k - 1) < 1 or np.linalg.matrix_rank(design) < design.shape[1]:
        return y, 0
    counts = np.bincount(releases)

    def release_means(values: np.ndarray) -> np.ndarray:  # each job's release's mean
        return (np.bincount(releases, values) / counts)[releases]

    offsets = np.r_[0.0, np.linalg.lstsq(design, y, rcond=None)[0][n:]]
    adjusted = y - (offsets - offsets.mean())[blocks]
    means = release_means(adjusted)
    left = float(np.sum((adjusted - means) ** 2))
    within = float(np.sum((y - release_means(y)) ** 2))
    f = (within - left) / (k - 1) / max(left / (dof - (k - 1)), 1e-300)
    if not f_dist.sf(f, k - 1, dof - (k - 1)) < POOL_BELOW:  # a nan pools too
        return y, 0
    return means + (adjusted - means) * np.sqrt(dof / (dof - (k - 1))), k - 1


def between_jobs(series: pd.DataFrame, taken: int = 0) -> tuple[float, float] | None:
    """The standard deviation between jobs of one release (log scale), beyond their own intervals, pooled over
    the releases timed in two jobs or more, with the degrees of freedom of the jobs' scatter it was estimated
    from, less `taken` (what `without_blocks` took; None where no release was timed twice: one job per release
    cannot tell it); `series`: one row per job, its log ratio `y`, its own variance `var` and its `release`."""
    y, var = series.y.to_numpy(), series["var"].to_numpy()
    repeated = [rows for rows in _positions(series.release).values() if rows.size > 1]
    if not repeated:
        return None
    dof = np.array([rows.size - 1 for rows in repeated])
    excess = float((np.array([_excess(y[rows], var[rows]) for rows in repeated]) * dof).sum() / dof.sum())
    return float(np.sqrt(max(0.0, excess))), float(dof.sum() - taken)


def _level(y: np.ndarray, var: np.ndarray, measured: tuple[float, float, float],
           spread: tuple[float, float] | None) -> dict:
    """A release's level from its jobs (log ratios `y`, own variances `var`): one job's own interval as
    `measured` (ratio, low, high) where no spread is known, else the mean log ratio with each job's variance
    plus the spread between jobs; where that adds anything, on the degrees of freedom of the jobs' scatter
    (`df`, else infinite: the jobs' own intervals hold)."""
    tau, df = spread if spread is not None else (None, np.inf)
    if y.size == 1 and tau is None:
        ratio, low, high = measured
    else:
        added = max((tau or 0.0) ** 2, _excess(y, var) if y.size > 1 else 0.0)
        df = df if added > 0 else np.inf
        level, level_se = float(y.mean()), float(np.sqrt((var.mean() + added) / y.size))
        t = upper_quantile(0.025, df)
        ratio, low, high = (float(np.exp(level + k * t * level_se)) for k in (0, -1, 1))
    return {"jobs": y.size, "ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high,
            "between_jobs": None if tau is None else float(np.expm1(tau)), "df": df,
            "detectable_change": detectable_change(low, high, df)}


def job_logs(ratios: pd.DataFrame) -> pd.DataFrame:
    """A history's job table with each job's log ratio `y` and its own variance `var` (its interval's, on the
    log scale); jobs without a finite ratio and interval are left out (they would count as jobs while the means
    skip them)."""
    y, se = np.log(ratios.ratio), log_standard_error(ratios.ratio_ci_low, ratios.ratio_ci_high)
    return ratios.assign(y=y, var=se ** 2)[np.isfinite(y) & np.isfinite(se)]


def release_levels(ratios: pd.DataFrame) -> pd.DataFrame:
    """Per series and release, its level with a 95% interval (`_level`) from its jobs (`job_logs`);
    `between_jobs`: the series' pooled spread as a relative change (empty where no release was timed twice);
    `blocks_taken`: the degrees of freedom its blocks' offsets took (`without_blocks`: 0 where pooled)."""
    rows = []
    for key, series in job_logs(ratios).groupby(SERIES, sort=False):
        y, taken = without_blocks(series)
        var, releases = series["var"].to_numpy(), _positions(series.release)
        measured = series[["ratio", "ratio_ci_low", "ratio_ci_high"]].to_numpy(dtype=float)
        spread = between_jobs(series.assign(y=y), taken)
        rows += [{"release": release, **_level(y[at], var[at], tuple(measured[at[0]]), spread),
                  **dict(zip(SERIES, key, strict=True)), "blocks_taken": taken, "versions": series.versions.iat[at[0]]}
                 for release, at in releases.items()]
    return pd.DataFrame(rows, columns=LEVEL_COLUMNS)
