"""The gate's global test for lockstep sides: are the rows as a whole slower than the threshold where no row alone
decides it?

It flips the signs of whole processes' log-ratios less log(1 + threshold), a process's rows together, and counts
sums of standardized row means as high as measured: exact up to EXACT_UP_TO processes, else DRAWS random flips. A few
rows beyond the threshold among many well below it pass.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import pandas as pd

EXACT_UP_TO = 12
DRAWS = 9_999


def _logs(table: pd.DataFrame) -> list[tuple[tuple[str, str], np.ndarray]]:
    """Each row's job and its processes' log-ratios, for rows of two processes or more with all values finite."""
    if "process_log_ratios" not in table:
        return []
    rows = [((r.study, r.config_id), np.array([float(x) for x in r.process_log_ratios.split(";")]))
            for r in table.itertuples() if isinstance(r.process_log_ratios, str) and r.process_log_ratios]
    rows = [(job, x) for job, x in rows if len(x) > 1 and np.isfinite(x).all()]
    lengths: dict[tuple[str, str], set[int]] = {}
    for job, x in rows:
        lengths.setdefault(job, set()).add(len(x))
    uneven = sorted(job for job, found in lengths.items() if len(found) > 1)
    if uneven:
        raise ValueError(f"rows of one job recorded different numbers of processes: {uneven}")
    return rows


def global_p(table: pd.DataFrame, threshold: float) -> float | None:
    """One-sided p-value of "no row beyond 1 + threshold" (None without rows of two processes or more)."""
    rows = _logs(table)
    if not rows:
        return None
    sizes = {job: len(x) for job, x in rows}
    offsets = dict(zip(sizes, np.cumsum([0, *list(sizes.values())[:-1]]), strict=True))
    total = sum(sizes.values())
    weights = np.zeros((len(rows), total))
    for i, (job, x) in enumerate(rows):
        d = x - math.log1p(threshold)
        weights[i, offsets[job]:offsets[job] + len(x)] = d / (np.sqrt(np.sum(d ** 2)) or 1.0)
    observed = weights.sum()
    flips = _signs(total) @ weights.sum(axis=0) >= observed - 1e-12
    return float(np.mean(flips) if total <= EXACT_UP_TO else (1 + np.sum(flips)) / (DRAWS + 1))


@lru_cache(maxsize=4)  # 9999 x processes floats each
def _signs(total: int) -> np.ndarray:
    """Every sign of `total` processes, or DRAWS drawn (seed 0): made once."""
    if total <= EXACT_UP_TO:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=total)))
    else:
        signs = np.random.default_rng(0).choice((1.0, -1.0), size=(DRAWS, total))
    signs.flags.writeable = False
    return signs
