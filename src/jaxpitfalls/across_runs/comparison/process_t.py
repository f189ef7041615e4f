"""A lockstep row's ratio over fresh processes: the interval, the p-value of "no change", and what the row could
detect, all from Student's t on the processes' median log-ratios.

A fresh process shifts all its rounds alike (another core, another memory layout), so the processes are the
independent units. A bootstrap over processes, then rounds, which this replaced, covered the true ratio in
97-100% of simulated rows (5 processes x 30 rounds, 3% noise a round) where fresh processes agree and in 86-90%
where they differ by 2%; this interval in 94-96% at either, about as wide where they agree
(tests/test_process_t.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import stdtrit

from ...harness import moderated

MOST_PROCESSES = 10_000  # beyond this many, a row's "processes needed" is reported as none


def process_logs(side: Sequence[Sequence[float]], first: Sequence[Sequence[float]]) -> list[float]:
    """Each process's median of its rounds' log-ratios side / first (one list of rounds per process, paired round
    by round)."""
    return [float(np.median(np.log(np.asarray(s, dtype=float) / np.asarray(f, dtype=float))))
            for s, f in zip(side, first, strict=True)]


def log_medians(groups: Sequence[Sequence[float]]) -> list[float]:
    """Each process's log median of its samples, for runs whose processes are paired with none of another run's
    (moderated.two_sample): the value a fresh process gives, its samples sharing its offset."""
    return [float(np.log(np.median(g))) for g in groups]


def as_row(found: moderated.Estimate) -> dict[str, float]:
    """A row's ratio with its 95% interval, p-value and degrees of freedom; `log_sd`, the spread between processes
    its interval rests on (pooled), for `detectability`. No interval (0, inf) and p = 1 where nothing says how
    far a fresh process moves it."""
    ratio, low, high = found.as_ratio()
    return {"ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high, "p_value": found.p_value, "df": found.df,
            "log_sd": found.pooled_sd if math.isfinite(found.high) else math.nan}


def _reach(log_sd: float, processes: int, prior_df: float) -> float:
    """The smallest log-ratio told from none with 80% power at the 95% level over `processes` processes, on
    processes - 1 degrees of freedom plus what pooling adds (`prior_df`)."""
    df = processes - 1 + prior_df
    return float(stdtrit(df, 0.975) + stdtrit(df, 0.80)) * log_sd / math.sqrt(processes)  # t.ppf's values


def detectability(log_sd: float, processes: float, threshold: float, df: float | None = None
                  ) -> dict[str, float | int | None]:
    """What a row over `processes` processes could detect (`detectable_change`: told from no change with 80% power
    at the 95% level, t's own quantiles on `df`, processes - 1 where not given), and how many processes would
    tell the threshold from none (`processes_needed`, and as a factor of this row's, `samples_factor`), at the
    spread the row's interval rests on (`log_sd`); nothing for a row without one."""
    if not (math.isfinite(log_sd) and log_sd > 0 and processes > 1):
        return {"detectable_change": math.inf, "samples_factor": math.inf, "processes_needed": None}
    prior_df = max(0.0, (df if df is not None else processes - 1) - (processes - 1))
    target = math.log(1 + threshold)
    needed = next((m for m in range(2, MOST_PROCESSES + 1) if _reach(log_sd, m, prior_df) <= target), None)
    return {"detectable_change": math.expm1(_reach(log_sd, processes, prior_df)),
            "samples_factor": max(1.0, needed / processes) if needed else math.inf, "processes_needed": needed}
