"""The lockstep rows' intervals checked against their processes: split-process replication (each job's rows
estimated again on two disjoint halves of its processes differ beyond their difference's 95% interval in 5% of rows
where the intervals hold), and the A/A rows' coverage by third of their own spread, which the average hides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from ...harness import clustered, moderated
from ...harness.stats import welch_df, wilson

SPLIT_TARGET = (0.03, 0.07)  # rows whose halves differ beyond their interval; 5% expected
SPLIT_MIN_PROCESSES = 4  # two processes a half at least: one alone has no spread to pool
MAX_SPLITS = 35  # a job's splits judged at most: every one up to 8 processes
DRAWS = 400  # simulated jobs per A/A job, for the thirds (as the studies' SIMULATED)
THIRDS = ("quietest third", "middle third", "noisiest third")  # of each job's rows, ranked by their spread
THIRD_TARGET = (0.92, 0.98)  # each third's coverage, as the rows' on average
Job = tuple[tuple[str, str], np.ndarray]  # (study, configuration), its rows x processes of log-ratios


def _se(found: moderated.Estimate) -> float:
    return (found.high - found.mean) / float(stdtrit(found.df, 0.975))


def _beyond(first: moderated.Estimate, second: moderated.Estimate) -> float:
    """How far the halves' difference lies past its 95% interval, in half-widths (Welch's df); above 0: beyond,
    nan where a half has no interval."""
    if not (math.isfinite(first.high) and math.isfinite(second.high)):
        return math.nan
    a, b = _se(first), _se(second)
    half = float(stdtrit(welch_df(a, first.df, b, second.df), 0.975)) * math.sqrt(a ** 2 + b ** 2)
    return abs(first.mean - second.mean) / half - 1


def _unranked(index: int, n: int, k: int) -> tuple[int, ...]:
    """The `index`-th k-combination of range(n) in itertools' order."""
    found: list[int] = []
    for left in range(k, 0, -1):
        x = found[-1] + 1 if found else 0
        while index >= (count := math.comb(n - x - 1, left - 1)):
            index, x = index - count, x + 1
        found.append(x)
    return tuple(found)


def splits(processes: int) -> list[tuple[list[int], list[int]]]:
    """A job's processes split into processes // 2 and the rest, each partition once: every split, or MAX_SPLITS
    drawn (seeded, by rank) so a job of many processes does not outweigh the others."""
    half = processes // 2
    total = math.comb(processes, half) if processes % 2 else math.comb(processes - 1, half - 1)
    chosen = range(total) if total <= MAX_SPLITS else sorted(
        np.random.default_rng(processes).choice(total, MAX_SPLITS, replace=False))
    return [(list(first), [i for i in range(processes) if i not in first])
            for first in (_unranked(int(i), processes, half) for i in chosen)]


def job_margins(logs: np.ndarray) -> np.ndarray:
    """Per split (rows) and job row (columns): `_beyond` for its halves; `logs`: rows x processes."""
    return np.array([[_beyond(x, y) for x, y in zip(moderated.pooled(logs[:, first]),
                                                     moderated.pooled(logs[:, rest]), strict=True)]
                     for first, rest in splits(logs.shape[1])])


def split_margins(jobs: list[tuple[str, np.ndarray]]) -> pd.DataFrame:
    """Each job (its name, rows x processes of log-ratios) of SPLIT_MIN_PROCESSES or more, each split's margin: one
    row per job, row of it and split."""
    found = []
    for job, logs in jobs:
        if logs.ndim != 2 or logs.shape[1] < SPLIT_MIN_PROCESSES:
            continue
        for split, margins in enumerate(job_margins(logs)):
            found += [{"job": job, "processes": logs.shape[1], "row": i, "split": split, "margin": m}
                      for i, m in enumerate(margins)]
    return pd.DataFrame(found, columns=["job", "processes", "row", "split", "margin"]).astype({"margin": float})


def split_share(margins: pd.DataFrame) -> dict[str, Any]:
    """The share of rows and splits whose halves differ beyond their interval, with its 95% interval over the jobs
    as clusters (clustered.py), the design effect of a row's splits counted where it is the larger; nothing where
    no job had SPLIT_MIN_PROCESSES."""
    judged = margins[np.isfinite(margins.margin)]
    if judged.empty:
        return {}
    beyond = judged.margin > 0
    rows = judged.job.astype(str) + "/" + judged.row.astype(str)
    jobs = judged.job.astype(str).str.split("#").str[0]  # a job's parts (`job#part`) share its processes
    effect = max(clustered.design_effect(judged.margin, beyond, jobs),
                 clustered.design_effect(judged.margin, beyond, rows))
    effective = clustered.effective_rows(len(judged), effect, jobs.nunique())
    low, high = clustered.interval(int(beyond.sum()), len(judged), effective)
    return {"comparisons": len(judged), "processes": tuple(sorted(set(judged.processes))), "rows": rows.nunique(),
            "splits": int(judged.split.nunique()), "jobs": int(jobs.nunique()),
            "share": float(beyond.mean()), "share_low": low, "share_high": high, "effective": effective}


def lockstep_jobs(table: pd.DataFrame) -> list[tuple[str, np.ndarray]]:
    """The lockstep table's jobs as `split_margins` reads them; none where its rows kept no process values."""
    if "process_log_ratios" not in table:
        return []
    return [(config, np.array([[float(x) for x in str(r).split(";")] for r in job.process_log_ratios]))
            for config, job in table.groupby("config_id", sort=False)]


def split_measured(table: pd.DataFrame) -> dict[str, Any] | None:
    """`split_share` of the lockstep table's jobs; None where its rows kept no process values (older tables)."""
    jobs = lockstep_jobs(table)
    return split_share(split_margins(jobs)) if jobs else None


def _listed(numbers: Sequence[int]) -> str:
    words = [str(n) for n in numbers]
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def split_line(found: dict[str, Any]) -> str:
    """The page's paragraph: the share against its target."""
    if not found:
        return (f"Split-process replication: no job had {SPLIT_MIN_PROCESSES} or more processes, so none was "
                "estimated on disjoint halves.")
    met = clustered.IN_WORDS[clustered.against(found["share"], found["share_low"], found["share_high"], SPLIT_TARGET)]
    halves = sorted({n // 2 for n in found["processes"]} | {n - n // 2 for n in found["processes"]})
    return (f"**Split-process replication.** Every row of a job of {SPLIT_MIN_PROCESSES} or more processes estimated "
            f"again on disjoint halves of its job's {_listed(found['processes'])} processes ({_listed(halves)} a "
            f"half, every split or {MAX_SPLITS} drawn where there are more, the spread pooled in each half as in the "
            f"job): the halves' estimates differed beyond their difference's 95% interval (Welch's) in "
            f"{found['share']:.1%} [{found['share_low']:.1%}, {found['share_high']:.1%}] of {found['comparisons']} "
            f"comparisons ({found['rows']} rows, up to {found['splits']} splits each; the interval over the "
            f"{found['jobs']} jobs as clusters). Target "
            f"{SPLIT_TARGET[0]:.0%}-{SPLIT_TARGET[1]:.0%}: {met}. Where the intervals hold, 5% is expected whatever "
            "each row's truth: the check needs no known truth and no simulation, only that a job's processes are "
            "alike; it tests the estimator at the halves' processes, not at the job's. It judges all rows at "
            "once: a noisy row's too narrow interval beside quiet rows' too wide ones can average out (rows ranked "
            "by their own spread cannot be judged so: that spread holds the halves' difference itself).")


def spreads(logs: np.ndarray) -> tuple[float, np.ndarray]:
    """A job's spreads (rows x processes): the sd of the offset its rows share (their mean cross-product) and each
    row's own about it, one sampling puts below 0 read as 0."""
    centred = logs - logs.mean(axis=1, keepdims=True)
    products = centred @ centred.T / (logs.shape[1] - 1)
    n = len(logs)
    shared = max(0.0, float((products.sum() - np.trace(products)) / (n * (n - 1)))) if n > 1 else 0.0
    return math.sqrt(shared), np.sqrt(np.maximum(np.diag(products) - shared, 0.0))


def drawn(shared: float, own: np.ndarray, processes: int, rng: np.random.Generator) -> np.ndarray:
    """A job's rows x processes drawn as Gaussian process means about 0."""
    return rng.normal(0.0, shared, processes) + rng.standard_normal((len(own), processes)) * own[:, None]


def aa_jobs(table: pd.DataFrame) -> list[Job]:
    """The first A/A side's jobs of two processes or more, their rows with every value finite."""
    if not {"study", "config_id", "processes", "process_log_ratios"} <= set(table.columns):
        return []
    same = table[(table.injected.round(4) == 1) & (table.processes > 1)]
    if same.empty:
        return []
    same = same[same.side == same.side.iloc[0]] if "side" in same else same  # one A/A side, as the gate judges
    timed = [((study, config_id), logs[np.isfinite(logs).all(axis=1)])
             for study, rows in same.groupby("study", sort=False) for config_id, logs in lockstep_jobs(rows)]
    return [(key, logs) for key, logs in timed if logs.size and logs.shape[1] > 1]


def thirds_of(spread: np.ndarray) -> np.ndarray:
    """Each row's third of its job by `spread` (0 quietest), alike from either end: two rows are 0 and 2."""
    rank = np.argsort(np.argsort(spread, kind="stable"), kind="stable")
    return (rank * 3 + 1) // len(spread)


def row_thirds(table: pd.DataFrame, seed: int = 0, draws: int = DRAWS) -> pd.DataFrame | None:
    """Per third of each A/A job's rows by own spread: rows covering their truth, of how many, the share and its
    Wilson interval, each job drawn `draws` times at its own processes and pooled alone, as a lockstep of two sides
    pools it; None without a quietest and a noisiest third."""
    rng = np.random.default_rng(seed)
    held, total = np.zeros(3, dtype=int), np.zeros(3, dtype=int)
    for _, logs in aa_jobs(table):
        shared, own = spreads(logs)
        third = thirds_of(own)
        for _ in range(draws):
            found = moderated.pooled(drawn(shared, own, logs.shape[1], rng))
            np.add.at(held, third, [e.low <= 0 <= e.high for e in found])
            np.add.at(total, third, 1)
    if not (total[0] and total[2]):
        return None
    return pd.DataFrame([{"covered": h, "rows": t, "share": h / t if t else np.nan, **dict(zip(
        ("low", "high"), wilson(h, t), strict=True))} for h, t in zip(held, total, strict=True)], index=list(THIRDS))


def shown(share: float, target: tuple[float, float]) -> str:
    """A share in percent, to two decimals where one would print the target's bound it lies beyond."""
    said = f"{share:.1%}"
    beyond = not target[0] <= share <= target[1]
    return f"{share:.2%}" if beyond and said in {f"{bound:.1%}" for bound in target} else said


def thirds_words(thirds: pd.DataFrame) -> str:
    """The thirds against THIRD_TARGET, each with its interval; met where every third's is."""
    found = [t for t in thirds.itertuples() if np.isfinite(t.share)]
    words = {clustered.against(t.share, t.low, t.high, THIRD_TARGET) for t in found}
    met = clustered.least(words)
    said = ", ".join(f"the {t.Index.split()[0]} {shown(t.share, THIRD_TARGET)} [{t.low:.1%}, {t.high:.1%}]"
                     for t in found)
    return (f"by third of each job's rows ranked by own spread (simulated from the spreads as timed), {said} "
            f"covered (target {THIRD_TARGET[0]:.0%}-{THIRD_TARGET[1]:.0%} in each: {clustered.IN_WORDS[met]})")


def thirds_line(thirds: pd.DataFrame) -> str:
    """The page's paragraph."""
    return (f"**Rows by their own spread.** The A/A rows, {thirds_words(thirds)}: each A/A job drawn {DRAWS} times "
            "at its own processes as Gaussian process means, with the offset its rows share and each row's own "
            "spread as timed (as the edge runs below draw them; true ratio 1), and pooled alone, as a lockstep of "
            "two sides pools it (this calibration pooled each configuration's sides together, on more rows). "
            "Pooling pulls a noisy row's spread toward its job's, so its interval is narrower than its own and a "
            "quiet row's wider; the coverage over all rows averages the two. Each interval is the draws' own "
            "error. Each spread as timed carries its own sampling error: the figures are of a world with these "
            "spreads, whose rows differ more than the truth's, and a row whose own spread reads 0 (sampling put "
            "it below 0) is drawn with the shared offset alone, among the quietest.")
