"""A lockstep row's ratio, interval, p-value and detectable change from Student's t on the processes' median
log-ratios. It replaced a bootstrap whose coverage depended on how far processes differ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import stdtrit

from ...harness import moderated

MOST_PROCESSES = 10_000  # beyond this many, a row's "processes needed" is reported as none


def process_logs(side: Sequence[Sequence[float]], first: Sequence[Sequence[float]]) -> list[float]:
    """Each process's median round log-ratio side / first (rounds paired by index)."""
    return [float(np.median(np.log(np.asarray(s, dtype=float) / np.asarray(f, dtype=float))))
            for s, f in zip(side, first, strict=True)]


def log_medians(groups: Sequence[Sequence[float]]) -> list[float]:
    """Each process's log median, for runs not paired with another's."""
    return [float(np.log(np.median(g))) for g in groups]


def median_ms(groups: Sequence[Sequence[float]]) -> float:
    """A side's time per call (ms): each process's median, their geometric mean, as a run's report gives it."""
    return float(np.exp(np.mean(log_medians(groups)))) * 1e3


def as_row(found: moderated.Estimate) -> dict[str, float]:
    """A row's ratio, 95% interval, p-value, df and pooled `log_sd`; (0, inf) and p = 1 where no spread between
    processes is known."""
    ratio, low, high = found.as_ratio()
    return {"ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high, "p_value": found.p_value, "df": found.df,
            "log_sd": found.pooled_sd if math.isfinite(found.high) else math.nan}


def _reach(log_sd: float, processes: int, prior_df: float) -> float:
    """The smallest log-ratio told from none (80% power, 95% level) over `processes`, on processes - 1 + `prior_df`
    df."""
    df = processes - 1 + prior_df
    return float(stdtrit(df, 0.975) + stdtrit(df, 0.80)) * log_sd / math.sqrt(processes)  # t.ppf's values


def detectability(log_sd: float, processes: float, threshold: float, df: float | None = None
                  ) -> dict[str, float | int | None]:
    """What a row could detect at spread `log_sd` (`detectable_change`: 80% power, 95% level, t on `df`), and the
    processes to tell the threshold (`processes_needed`, `samples_factor`)."""
    if not (math.isfinite(log_sd) and log_sd > 0 and processes > 1):
        return {"detectable_change": math.inf, "samples_factor": math.inf, "processes_needed": None}
    prior_df = max(0.0, (df if df is not None else processes - 1) - (processes - 1))
    target = math.log(1 + threshold)
    needed = next((m for m in range(2, MOST_PROCESSES + 1) if _reach(log_sd, m, prior_df) <= target), None)
    return {"detectable_change": math.expm1(_reach(log_sd, processes, prior_df)),
            "samples_factor": max(1.0, needed / processes) if needed else math.inf, "processes_needed": needed}
