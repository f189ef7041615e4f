"""A job's medians, step shares, spreads and compile ratios over its fresh processes, by the estimator of its
comparisons (harness.moderated).

A fresh process shifts every sample it takes (another core, another memory layout), so a job's value over several
processes is judged on each process's own, not on their samples pooled: each process's value (a mode's median, its
calls' median share of one step, its relative IQR, its paired compile-time ratio), their mean on the log scale (a
share's on the logit scale, so its interval stays inside 0-1), and Student's t on the spread between processes
pooled across the job's rows of that kind, as its comparisons' is (a step's share with no offset split off: what
one step gains in a process another loses). A two-level bootstrap over 2 processes, used
before, gave median intervals 2.2-3.6 times narrower than this on the published reference
(docs/decisions.md#a-jobs-medians-over-its-processes). A job of one process keeps its bootstrap over samples
(aggregate): nothing there says how far a fresh process moves its value.

Both a timing run's tables (aggregate) and a published snapshot's (reference.reestimate) are estimated here, from
the per-process rows the steps and comparisons tables keep beside the job's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from ...harness import moderated

POOLED = "all"  # a job's row, beside each worker process's own (`0`, `1`, ...)
STEP_KEYS = ["variant", "mode"]
COMPARISON_KEYS = ["variant", "baseline", "mode"]
SHARE_EDGE = 1e-9  # a step no clock could see (a share of 0) or the whole call (1) has no logit: held this close

Scale = tuple[Callable[[np.ndarray], np.ndarray], Callable[[float], float]]  # to the scale estimated on, and back
LOG: Scale = (np.log, math.exp)
LOGIT: Scale = (lambda x: logit(np.clip(x, SHARE_EDGE, 1 - SHARE_EDGE)), lambda x: float(expit(x)))


def _with_interval(column: str, suffix: str = "") -> tuple[str, str, str]:
    return column + suffix, f"{column}_ci_low{suffix}", f"{column}_ci_high{suffix}"


Pool = Callable[[np.ndarray], list[moderated.Estimate]]
Quantity = tuple[list[tuple[str, str, str]], Scale, Pool]  # columns (each value, low, high) pooled as one


def _step_quantities(steps: pd.DataFrame) -> list[Quantity]:
    """A steps table's medians and its relative IQRs (a slow or noisy process moves every row alike: its offset
    split off), and the shares of every step of every stepped mode (one pool, no offset shared: what one step
    gains in a process another loses)."""
    shares = [_with_interval(c) for c in steps if c.startswith("step_") and c.endswith("_share")]
    return [([_with_interval("median", "_ms")], LOG, moderated.pooled),
            ([_with_interval("relative_iqr")], LOG, moderated.pooled),
            *([(shares, LOGIT, moderated.pooled_apart)] if shares else [])]


def _fill(job: pd.DataFrame, own: pd.DataFrame, keys: list[str], quantity: Quantity) -> None:
    """Write into `job`'s rows (in place) the estimate over processes of each of the quantity's columns, for the
    rows every process measured it in: each process's value on the quantity's scale, moderated.pooled across
    all of them, and back. A row with a value the scale cannot hold (a relative IQR of 0: a clock too coarse to
    see the spread) is left out of the pool and gets no interval."""
    columns, (to_scale, back), pool = quantity
    values = pd.concat({c[0]: own.pivot(index=keys, columns="process", values=c[0]) for c in columns}).dropna()
    values = values[sorted(values.columns, key=int)]
    where = {tuple(k): i for i, k in zip(job.index, job[keys].itertuples(index=False), strict=True)}
    with np.errstate(divide="ignore"):  # log(0): a row the pool leaves out
        scaled = to_scale(values.to_numpy(dtype=float))
    held = np.isfinite(scaled).all(axis=1)
    found = iter(pool(scaled[held]) if held.any() else [])
    named = {c[0]: c for c in columns}
    for (column, *key), row, in_pool in zip(values.index, scaled, held, strict=True):
        e = next(found) if in_pool else moderated.estimate([float(row.mean())])  # one value: no interval
        job.loc[where[tuple(key)], list(named[column])] = [back(x) for x in (e.mean, e.low, e.high)]


def _estimated(table: pd.DataFrame, keys: list[str], quantities: list[Quantity]) -> pd.DataFrame:
    """`table` with each job's rows (process `all`) estimated from its processes' rows, per quantity; a job of
    one process unchanged."""
    jobs = []
    for _, rows in table.groupby("config_id", sort=False):
        is_job = rows.process.astype(str) == POOLED
        job, own = rows[is_job].copy(), rows[~is_job].assign(process=lambda r: r.process.astype(str))
        for quantity in quantities if not own.empty else []:
            _fill(job, own, keys, quantity)
        jobs += [job, rows[~is_job]]
    return pd.concat(jobs).loc[table.index] if jobs else table


def steps_over_processes(steps: pd.DataFrame) -> pd.DataFrame:
    """A steps table whose job rows' medians, relative IQRs and step shares (each with its interval) are
    estimated over the job's processes."""
    return _estimated(steps, STEP_KEYS, _step_quantities(steps))


def compile_ratios_over_processes(comparisons: pd.DataFrame) -> pd.DataFrame:
    """A comparisons table whose job rows' compile-time ratios (modes that compile on purpose) are estimated
    over the job's processes, pooled as its comparisons are (two rows at 2 processes keep each its own spread:
    moderated.pooled)."""
    if "compile_ratio" not in comparisons:
        return comparisons
    return _estimated(comparisons, COMPARISON_KEYS, [([_with_interval("compile_ratio")], LOG, moderated.pooled)])
