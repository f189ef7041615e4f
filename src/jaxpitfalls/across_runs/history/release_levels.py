"""A release timed in several jobs (`history.repeats`): one level per release, the spread between jobs in it.

A job's interval cannot hold what the whole job shares, so the jobs of one release disagree beyond their intervals;
that spread is pooled per series, its degrees of freedom carried into the levels and the fit
(docs/decisions.md#the-historys-spread-between-jobs-on-its-degrees-of-freedom). What a run-order block shares is
taken out first where it exceeds the jobs' scatter (docs/decisions.md#blocks-in-the-history).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
from scipy.special import fdtrc  # the F distribution's upper tail: scipy.stats' f.sf without its checks

from ...harness.stats import Z_95, log_standard_error, satterthwaite
from .changepoints import Parts, upper_quantile

SERIES = ["config_id", "variant", "baseline", "mode"]
FIT_PARTS = ["jobs_df_known", *Parts._fields]  # what each step's df is counted from
LEVEL_COLUMNS = ["release", *SERIES, "jobs", "ratio", "ratio_ci_low", "ratio_ci_high", "between_jobs", "df",
                 "blocks_taken", "detectable_change", "versions", *FIT_PARTS]


Z_POWER_80 = 0.84
POOL_BELOW = 0.25  # blocks are taken out where their F test's p is below this, else pooled (Bancroft's rule)


def detectable_change(low: float, high: float, df: float = np.inf) -> float:
    """The smallest relative change a 95% interval low..high (t on `df`) tells from none with 80% power."""
    t = upper_quantile(0.025, df)
    se = (np.log(high) - np.log(low)) / (2 * t) if low > 0 and high > 0 else np.inf
    power = Z_POWER_80 if np.isinf(df) else upper_quantile(0.20, df)
    return float(np.expm1((t + power) * se))


def series_rows(table: pd.DataFrame) -> Iterator[tuple[tuple, np.ndarray]]:
    """Each series' key and its rows' positions in `table`, in the order the series first appear (rows missing a
    key left out, as groupby leaves them); by a dict, not groupby, as simulated histories ask thousands of times."""
    columns = [table[c].to_numpy(dtype=object) for c in SERIES]
    missing = np.logical_or.reduce([pd.isna(c) for c in columns]) if len(table) else np.zeros(0, dtype=bool)
    rows: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(*columns, strict=True)):
        if not missing[i]:
            rows.setdefault(key, []).append(i)
    for key, at in rows.items():
        yield key, np.array(at)


def _first_seen(values: np.ndarray) -> np.ndarray:
    """Codes 0..n-1 for `values` in the order each first appears (as pd.factorize), in numpy: simulated histories
    fit thousands of series."""
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=int)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse.ravel()]


def _positions(codes: np.ndarray) -> list[np.ndarray]:
    """Each release's row positions in a series' job table, releases in the order they first appear."""
    return [np.flatnonzero(codes == i) for i in range(codes.max() + 1)] if codes.size else []


def _excess(y: np.ndarray, var: np.ndarray) -> float:
    """One release's variance between its jobs beyond their own (log scale; negative where they agree better)."""
    return float(np.var(y, ddof=1) - var.mean())


def _without_blocks(y: np.ndarray, releases: np.ndarray, blocks: np.ndarray) -> tuple[np.ndarray, int]:
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
    if not fdtrc(k - 1, dof - (k - 1), f) < POOL_BELOW:  # a nan (f below 0 or undefined) pools too
        return y, 0
    return means + (adjusted - means) * np.sqrt(dof / (dof - (k - 1))), k - 1


def between_jobs(y: np.ndarray, var: np.ndarray, releases: list[np.ndarray],
                 taken: int = 0) -> tuple[float, float] | None:
    """The pooled sd between a release's jobs beyond their intervals (log scale; `releases`: each one's positions),
    and its df less `taken`; None where no release was timed twice."""
    repeated = [rows for rows in releases if rows.size > 1]
    if not repeated:
        return None
    dof = np.array([rows.size - 1 for rows in repeated])
    excess = float((np.array([_excess(y[rows], var[rows]) for rows in repeated]) * dof).sum() / dof.sum())
    return float(np.sqrt(max(0.0, excess))), float(dof.sum() - taken)


def _level(y: np.ndarray, var: np.ndarray, dfs: np.ndarray, measured: tuple[float, float, float],
           spread: tuple[float, float] | None) -> dict:
    """A release's level from its jobs: one job's interval `measured` where no spread is known, else their mean
    with the spread added, on their df and the spread's together (its share kept: the releases share it)."""
    tau, tau_df = spread if spread is not None else (None, np.inf)
    known = bool(np.isfinite(dfs).all())
    jobs_df = satterthwaite(var / y.size ** 2, dfs)
    if y.size == 1 and tau is None:
        (ratio, low, high), df, added = measured, jobs_df, 0.0
    else:
        added = max((tau or 0.0) ** 2, _excess(y, var) if y.size > 1 else 0.0)
        parts = np.array([var.mean(), added]) / y.size
        df = (satterthwaite(parts, np.array([jobs_df, tau_df if added > 0 else 1])) if known
              else tau_df if added > 0 else np.inf)  # jobs' df unknown: the spread's
        level, level_se = float(y.mean()), float(np.sqrt(parts.sum()))
        t = upper_quantile(0.025, df)
        ratio, low, high = (float(np.exp(level + k * t * level_se)) for k in (0, -1, 1))
    return {"jobs": y.size, "ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high,
            "between_jobs": None if tau is None else float(np.expm1(tau)), "df": df, "jobs_df_known": known,
            "jobs_df": jobs_df, "spread_share": added / (var.mean() + added) if added > 0 else 0.0,
            "spread_df": tau_df if added > 0 else np.inf, "detectable_change": detectable_change(low, high, df)}


def job_logs(ratios: pd.DataFrame) -> pd.DataFrame:
    """A job table with each job's log ratio `y`, variance `var` (read on its `ratio_df`, normal in a table where a
    job has none) and `job_df`; jobs without a finite ratio and interval left out."""
    ratios = ratios.astype({c: float for c in ("ratio", "ratio_ci_low", "ratio_ci_high")})  # none: object columns
    y, se = np.log(ratios.ratio), log_standard_error(ratios.ratio_ci_low, ratios.ratio_ci_high)
    kept = np.isfinite(y) & np.isfinite(se)
    ratios, se = ratios.assign(y=y)[kept], se[kept]
    dfs = ratios.ratio_df.astype(float) if "ratio_df" in ratios else pd.Series(np.inf, ratios.index)
    dfs = dfs if dfs.notna().all() else pd.Series(np.inf, ratios.index)  # any job without: every job read as before
    quantiles = np.array([upper_quantile(0.025, df) for df in dfs])
    return ratios.assign(var=(se * Z_95 / quantiles) ** 2, job_df=dfs.to_numpy())


def series_logs(jobs: pd.DataFrame) -> Iterator[tuple[tuple, np.ndarray, np.ndarray, int, list[np.ndarray]]]:
    """Per series of a `job_logs` table: its key, its rows' positions, their log ratios less their block's offset
    (the k-th `job` runs in block k; left in where not significant at `POOL_BELOW`), the df that took, and each
    release's positions among its rows."""
    y_all, release_all = jobs.y.to_numpy(), jobs.release.to_numpy()
    job_all = jobs.job.to_numpy() if "job" in jobs else None
    for key, at in series_rows(jobs):
        codes = _first_seen(release_all[at])
        y, taken = (y_all[at], 0) if job_all is None else _without_blocks(y_all[at], codes, _first_seen(job_all[at]))
        yield key, at, y, taken, _positions(codes)


def release_levels(ratios: pd.DataFrame) -> pd.DataFrame:
    """Per series and release, its level with a 95% interval, with `between_jobs` and `blocks_taken`."""
    jobs = job_logs(ratios)
    var_all, df_all = jobs["var"].to_numpy(), jobs.job_df.to_numpy()
    measured_all = jobs[["ratio", "ratio_ci_low", "ratio_ci_high"]].to_numpy(dtype=float)
    release_all, versions_all = jobs.release.to_numpy(), jobs.versions.to_numpy()
    rows = []
    for key, at, y, taken, releases in series_logs(jobs):
        var, measured = var_all[at], measured_all[at]
        spread = between_jobs(y, var, releases, taken)
        rows += [{"release": release_all[at[where[0]]],
                  **_level(y[where], var[where], df_all[at][where], tuple(measured[where[0]]), spread),
                  **dict(zip(SERIES, key, strict=True)), "blocks_taken": taken,
                  "versions": versions_all[at[where[0]]]} for where in releases]
    return pd.DataFrame(rows, columns=LEVEL_COLUMNS)


def df_words(levels: pd.DataFrame) -> str:
    """On which degrees of freedom the intervals and steps were read: the jobs' own, or as before them."""
    if levels.jobs_df_known.all():
        return ("Each job's interval is read on its own degrees of freedom (`ratio_df`), a release's on its jobs' "
                "and the spread's together (Satterthwaite: the table's `df`), each step on the levels it compares.")
    return ("A job lacks `ratio_df` (a result from before it): every interval is read on the normal quantile and "
            "each series' steps tested on its fewest degrees of freedom.")
