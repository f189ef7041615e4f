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
from scipy.stats import t

from ...harness import moderated

MOST_PROCESSES = 10_000  # beyond this many, a row's "processes needed" is reported as none


def interval(side: Sequence[Sequence[float]], first: Sequence[Sequence[float]]) -> dict[str, float]:
    """The ratio side / first (one list of rounds per process, paired round by round) with its 95% interval and
    p-value: each process's median of its rounds' log-ratios, their mean, Student's t on processes - 1 degrees
    of freedom (harness.moderated.estimate, each row on its own spread: the rows calibrated so); `log_sd`, the
    processes' spread, for `detectability`. One process, or processes that agree to the last bit: nothing says
    how far a fresh one moves the ratio, so no interval (0, inf) and p = 1."""
    found = moderated.estimate([np.median(np.log(np.asarray(s, dtype=float) / np.asarray(f, dtype=float)))
                                for s, f in zip(side, first, strict=True)])
    return {"ratio": math.exp(found.mean), "ratio_ci_low": math.exp(found.low), "ratio_ci_high": math.exp(found.high),
            "p_value": found.p_value, "log_sd": found.sd if math.isfinite(found.high) else math.nan}


def _reach(log_sd: float, processes: int) -> float:
    """The smallest log-ratio found with 80% power at the 95% level over `processes` processes."""
    df = processes - 1
    return float(t.ppf(0.975, df) + t.ppf(0.80, df)) * log_sd / math.sqrt(processes)


def detectability(log_sd: float, processes: int, threshold: float) -> dict[str, float | int | None]:
    """What a row over `processes` processes could detect (`detectable_change`: 80% power at the 95% level, t's
    own quantiles), and how many processes would detect the threshold (`processes_needed`, and as a factor of
    this row's, `samples_factor`), at the spread the row saw (`log_sd`); nothing for a row without one."""
    if not (math.isfinite(log_sd) and log_sd > 0 and processes > 1):
        return {"detectable_change": math.inf, "samples_factor": math.inf, "processes_needed": None}
    target = math.log(1 + threshold)
    needed = next((m for m in range(2, MOST_PROCESSES + 1) if _reach(log_sd, m) <= target), None)
    return {"detectable_change": math.expm1(_reach(log_sd, processes)),
            "samples_factor": max(1.0, needed / processes) if needed else math.inf, "processes_needed": needed}
