"""Split-process replication: each job's rows estimated again on two disjoint halves of its processes, as
harness/moderated.py estimates a job. Where the intervals hold, the halves' estimates differ beyond their
difference's 95% interval in 5% of rows, whatever each row's truth: a check of the intervals that needs no
simulation and no known truth, and that fails where the spread between processes is understated.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from ...harness import moderated
from . import clustered

TARGET = (0.03, 0.07)  # rows whose halves differ beyond their interval; 5% expected
MIN_PROCESSES = 4  # two processes a half at least: one alone has no spread to pool


def _se(found: moderated.Estimate) -> float:
    return (found.high - found.mean) / float(stdtrit(found.df, 0.975))


def _beyond(first: moderated.Estimate, second: moderated.Estimate) -> float:
    """How far the halves' difference lies past its 95% interval, in half-widths (Welch's df); above 0: beyond,
    nan where a half has no interval."""
    if not (math.isfinite(first.high) and math.isfinite(second.high)):
        return math.nan
    a, b = _se(first), _se(second)
    df = (a ** 2 + b ** 2) ** 2 / (a ** 4 / first.df + b ** 4 / second.df)
    half = float(stdtrit(df, 0.975)) * math.sqrt(a ** 2 + b ** 2)
    return abs(first.mean - second.mean) / half - 1


def splits(processes: int) -> Iterator[tuple[list[int], list[int]]]:
    """Every split of a job's processes into a half of processes // 2 and the rest."""
    for half in itertools.combinations(range(processes), processes // 2):
        yield list(half), [i for i in range(processes) if i not in half]


def job_margins(logs: np.ndarray) -> np.ndarray:
    """Per split (rows) and row of the job (columns): `_beyond` for its halves; `logs`: rows x processes."""
    return np.array([[_beyond(x, y) for x, y in zip(moderated.pooled(logs[:, first]),
                                                     moderated.pooled(logs[:, rest]), strict=True)]
                     for first, rest in splits(logs.shape[1])])


def replication(table: pd.DataFrame) -> pd.DataFrame:
    """The lockstep table's rows of every job of MIN_PROCESSES or more, each split's margin: one row per
    configuration, row of its job and split."""
    found = []
    for config, job in table.groupby("config_id", sort=False):
        logs = np.array([[float(x) for x in str(r).split(";")] for r in job.process_log_ratios])
        if logs.ndim != 2 or logs.shape[1] < MIN_PROCESSES:
            continue
        for split, margins in enumerate(job_margins(logs)):
            found += [{"config_id": config, "row": i, "split": split, "margin": m} for i, m in enumerate(margins)]
    return pd.DataFrame(found, columns=["config_id", "row", "split", "margin"]).astype({"margin": float})


def share(margins: pd.DataFrame) -> dict[str, float]:
    """The share of rows and splits whose halves differ beyond their interval, with its 95% interval over the
    configurations as clusters (clustered.py); nothing where no job had MIN_PROCESSES."""
    judged = margins[np.isfinite(margins.margin)]
    if judged.empty:
        return {}
    beyond = judged.margin > 0
    effective, low, high = clustered.share_interval(judged.margin, beyond, judged.config_id)
    return {"comparisons": len(judged), "rows": int(judged[["config_id", "row"]].drop_duplicates().shape[0]),
            "splits": int(judged.split.nunique()), "configurations": int(judged.config_id.nunique()),
            "share": float(beyond.mean()), "share_low": low, "share_high": high, "effective": effective}


def measured(table: pd.DataFrame) -> dict[str, float] | None:
    """`share` of the lockstep table's jobs; None where its rows kept no process values (tables before they did)."""
    return share(replication(table)) if "process_log_ratios" in table and len(table) else None


def line(found: dict[str, float], processes: Sequence[int]) -> str:
    """The page's paragraph: the share against its target."""
    if not found:
        return (f"Split-process replication: no job had {MIN_PROCESSES} or more processes a side, so none was "
                "estimated on disjoint halves.")
    met = {"yes": "met", "no": "**missed**"}.get(
        clustered.against(found["share"], found["share_low"], found["share_high"], TARGET), "cannot tell")
    return (f"**Split-process replication.** Every row estimated again on disjoint halves of its job's "
            f"{', '.join(map(str, sorted(set(processes))))} processes (every split, the spread pooled in each half "
            f"as in the job): the halves' estimates differed beyond their difference's 95% interval in "
            f"{found['share']:.1%} [{found['share_low']:.1%}, {found['share_high']:.1%}] of "
            f"{found['comparisons']} comparisons ({found['rows']} rows x {found['splits']} splits; the interval over "
            f"the {found['configurations']} configurations as clusters). Target {TARGET[0]:.0%}-{TARGET[1]:.0%}: "
            f"{met}. Where the intervals hold, 5% is expected whatever each row's truth: the check needs no known "
            "truth and rests on the measured processes, not on a model of them. It judges the intervals over all "
            "rows at once: a noisy row's too narrow interval beside quiet rows' too wide ones can average out (rows "
            "ranked by their own spread cannot be judged so: that spread holds the halves' difference itself).")
