"""A job's estimates over its fresh processes: each process's value counts once, on the log (shares: logit) scale,
with Student's t (docs/decisions.md#a-jobs-medians-over-its-processes). One-process jobs keep their bootstrap."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from ...harness import moderated
from ...harness.pooled import group_of, pool_group

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
Kinds = Callable[[pd.DataFrame], Callable[[tuple], Hashable]]  # a job's rows -> each row key's pool (pool_group)
Marks = Mapping[str, Mapping[tuple[str, str], str]]  # per configuration, its (variant, mode)s not steady


def _step_quantities(steps: pd.DataFrame) -> list[Quantity]:
    """A steps table's medians and relative IQRs (offset split off), and step shares (pooled apart)."""
    shares = [_with_interval(c) for c in steps if c.startswith("step_") and c.endswith("_share")]
    return [([_with_interval("median", "_ms")], LOG, moderated.pooled),
            ([_with_interval("relative_iqr")], LOG, moderated.pooled),
            *([(shares, LOGIT, moderated.pooled_apart)] if shares else [])]


def _step_kinds(job: pd.DataFrame) -> Callable[[tuple], Hashable]:
    """A steps table's rows pool by their own marks."""
    labels = job.set_index(STEP_KEYS)[[c for c in ("recompiles", "measures_compilation") if c in job]]
    return lambda key: pool_group(labels.loc[key])


def _fill(job: pd.DataFrame, own: pd.DataFrame, keys: list[str], quantity: Quantity, kinds: Kinds) -> None:
    """Write each column's estimate into `job`'s rows (in place), pooled by kind; a value off the scale (IQR 0)
    gets no interval."""
    columns, (to_scale, back), pool = quantity
    values = pd.concat({c[0]: own.pivot(index=keys, columns="process", values=c[0]) for c in columns}).dropna()
    values = values[sorted(values.columns, key=int)]
    where = {tuple(k): i for i, k in zip(job.index, job[keys].itertuples(index=False), strict=True)}
    with np.errstate(divide="ignore"):  # log(0): a row the pool leaves out
        scaled = to_scale(values.to_numpy(dtype=float))
    held = np.isfinite(scaled).all(axis=1)
    kind = kinds(job)
    groups = [kind(tuple(key)) for _, *key in values.index]
    found = iter(moderated.in_groups(pool, scaled[held], [g for g, h in zip(groups, held, strict=True) if h]))
    named = {c[0]: c for c in columns}
    for (column, *key), row, in_pool in zip(values.index, scaled, held, strict=True):
        e = next(found) if in_pool else moderated.estimate([float(row.mean())])  # one value: no interval
        job.loc[where[tuple(key)], list(named[column])] = [back(x) for x in (e.mean, e.low, e.high)]
        if f"{column}_df" in job:  # where the table keeps one: what an undecided rule says would decide it
            job.loc[where[tuple(key)], f"{column}_df"] = e.df


def _estimated(table: pd.DataFrame, keys: list[str], quantities: list[Quantity], kinds: Kinds) -> pd.DataFrame:
    """`table` with each job's rows (process `all`) estimated from its processes' rows."""
    jobs = []
    for _, rows in table.groupby("config_id", sort=False):
        is_job = rows.process.astype(str) == POOLED
        job, own = rows[is_job].copy(), rows[~is_job].assign(process=lambda r: r.process.astype(str))
        for quantity in quantities if not own.empty else []:
            _fill(job, own, keys, quantity, kinds)
        jobs += [job, rows[~is_job]]
    return pd.concat(jobs).loc[table.index] if jobs else table


def steps_over_processes(steps: pd.DataFrame) -> pd.DataFrame:
    """A steps table whose job rows' medians, relative IQRs and step shares are estimated over its processes."""
    return _estimated(steps, STEP_KEYS, _step_quantities(steps), _step_kinds)


def compile_ratios_over_processes(comparisons: pd.DataFrame, marks: Marks) -> pd.DataFrame:
    """A comparisons table whose job rows' compile-time ratios are estimated over processes, each pair with
    those of its sides' kinds (`marks`)."""
    if "compile_ratio" not in comparisons:
        return comparisons

    def kinds(job: pd.DataFrame) -> Callable[[tuple], Hashable]:
        return lambda pair: group_of(pair, marks.get(job.config_id.iat[0], {}))

    return _estimated(comparisons.assign(compile_ratio_df=math.nan), COMPARISON_KEYS,
                      [([_with_interval("compile_ratio")], LOG, moderated.pooled)], kinds)
