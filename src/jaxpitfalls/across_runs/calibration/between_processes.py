"""What a lockstep calibration's fresh processes tell beyond its rows' verdicts.

Split-process replication: each job's rows estimated again on two disjoint halves of its processes, as
harness/moderated.py estimates a job. Where the intervals hold, the halves' estimates differ beyond their
difference's 95% interval in 5% of rows, whatever each row's truth: a check of the intervals that needs no
simulation and no known truth, and that fails where the spread between processes is understated.

Where processes or rounds buy precision (Kalibera and Jones, "Rigorous benchmarking in reasonable time", 2013): a
row's variance over P processes of R rounds is (between + within / R) / P, at a machine time of
P x (process + R x round); the rounds that buy the most precision a machine second are
sqrt(process x within / (round x between)). Means of rounds stand for the rows' medians of rounds (a constant factor
on `within` for normal rounds). A round's cost is its samples' time; a process's is the rest of the job over its
processes (start, preparation, calls per sample calibrated, every round's own overhead), which leans toward more
rounds.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from ...harness import moderated
from . import clustered

SPLIT_TARGET = (0.03, 0.07)  # rows whose halves differ beyond their interval; 5% expected
SPLIT_MIN_PROCESSES = 4  # two processes a half at least: one alone has no spread to pool


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


def split_margins(table: pd.DataFrame) -> pd.DataFrame:
    """The lockstep table's rows of every job of SPLIT_MIN_PROCESSES or more, each split's margin: one row per
    configuration, row of its job and split."""
    found = []
    for config, job in table.groupby("config_id", sort=False):
        logs = np.array([[float(x) for x in str(r).split(";")] for r in job.process_log_ratios])
        if logs.ndim != 2 or logs.shape[1] < SPLIT_MIN_PROCESSES:
            continue
        for split, margins in enumerate(job_margins(logs)):
            found += [{"config_id": config, "processes": logs.shape[1], "row": i, "split": split, "margin": m}
                      for i, m in enumerate(margins)]
    return pd.DataFrame(found, columns=["config_id", "processes", "row", "split", "margin"]).astype({"margin": float})


def split_share(margins: pd.DataFrame) -> dict[str, Any]:
    """The share of rows and splits whose halves differ beyond their interval, with its 95% interval over the
    configurations as clusters (clustered.py); nothing where no job had SPLIT_MIN_PROCESSES."""
    judged = margins[np.isfinite(margins.margin)]
    if judged.empty:
        return {}
    beyond = judged.margin > 0
    effective, low, high = clustered.share_interval(judged.margin, beyond, judged.config_id)
    return {"comparisons": len(judged), "processes": tuple(sorted(set(judged.processes))),
            "rows": int(judged[["config_id", "row"]].drop_duplicates().shape[0]),
            "splits": int(judged.split.nunique()), "configurations": int(judged.config_id.nunique()),
            "share": float(beyond.mean()), "share_low": low, "share_high": high, "effective": effective}


def split_measured(table: pd.DataFrame) -> dict[str, Any] | None:
    """`split_share` of the lockstep table's jobs; None where its rows kept no process values (older tables)."""
    return split_share(split_margins(table)) if "process_log_ratios" in table and len(table) else None


def split_line(found: dict[str, Any]) -> str:
    """The page's paragraph: the share against its target."""
    if not found:
        return (f"Split-process replication: no job had {SPLIT_MIN_PROCESSES} or more processes, so none was "
                "estimated on disjoint halves.")
    met = {"yes": "met", "no": "**missed**"}.get(
        clustered.against(found["share"], found["share_low"], found["share_high"], SPLIT_TARGET), "cannot tell")
    return (f"**Split-process replication.** Every row estimated again on disjoint halves of its job's "
            f"{', '.join(map(str, found['processes']))} processes (every split, the spread pooled in each half "
            f"as in the job): the halves' estimates differed beyond their difference's 95% interval in "
            f"{found['share']:.1%} [{found['share_low']:.1%}, {found['share_high']:.1%}] of "
            f"{found['comparisons']} comparisons ({found['rows']} rows x {found['splits']} splits; the interval over "
            f"the {found['configurations']} configurations as clusters). Target "
            f"{SPLIT_TARGET[0]:.0%}-{SPLIT_TARGET[1]:.0%}: "
            f"{met}. Where the intervals hold, 5% is expected whatever each row's truth: the check needs no known "
            "truth and rests on the measured processes, not on a model of them. It judges the intervals over all "
            "rows at once: a noisy row's too narrow interval beside quiet rows' too wide ones can average out (rows "
            "ranked by their own spread cannot be judged so: that spread holds the halves' difference itself).")


ALLOCATION_MIN_PROCESSES = 3  # fewer leave a row's t interval on too few degrees of freedom, whatever the variance says
MAX_ROUNDS = 1000


def _row_logs(timed: dict[str, Any]) -> Iterator[np.ndarray]:
    """Each row's round log-ratios against the first side, processes x rounds."""
    first, *others = timed["sides"]
    for mode, variants in timed["processes"][0][first].items():
        for variant in variants:
            for side in others:
                yield np.array([np.log(np.asarray(p[side][mode][variant]) / np.asarray(p[first][mode][variant]))
                                for p in timed["processes"]])


def components(timed: dict[str, Any]) -> tuple[float, float]:
    """The variance between processes and within one (a round's), averaged over the job's rows; the between part
    at least 0."""
    within, between = [], []
    for logs in _row_logs(timed):
        w = float(logs.var(axis=1, ddof=1).mean())
        within.append(w)
        between.append(max(0.0, float(logs.mean(axis=1).var(ddof=1)) - w / logs.shape[1]))
    return float(np.mean(within)), float(np.mean(between))


def costs(job: dict[str, Any]) -> tuple[float, float]:
    """A process's and a round's machine time in the job (s)."""
    timed = job["timed"]
    calls = timed["calls_per_sample"]
    processes, rounds = len(timed["processes"]), timed["rounds"]
    samples = sum(float(np.sum(xs)) * calls[mode][variant] for p in timed["processes"] for side in timed["sides"]
                  for mode, variants in p[side].items() for variant, xs in variants.items())
    round_s = samples / processes / rounds
    return (job["job_seconds"] - samples) / processes, round_s


def _plan(within: float, between: float, process_s: float, round_s: float, variance: float
          ) -> tuple[int, float, float]:
    """The rounds a process that buy the most precision a second, the processes (at least ALLOCATION_MIN_PROCESSES) that
    reach `variance` at them, and the machine time so."""
    best = math.sqrt(process_s * within / (round_s * between)) if between > 0 else MAX_ROUNDS
    rounds = int(min(MAX_ROUNDS, max(1, round(best))))
    floor = variance * ALLOCATION_MIN_PROCESSES
    if between + within / rounds < floor and between < floor:  # at the floor of processes, fewer rounds reach it
        rounds = min(rounds, math.ceil(within / (floor - between)))
    processes = max(ALLOCATION_MIN_PROCESSES, (between + within / rounds) / variance)
    return rounds, processes, processes * (process_s + rounds * round_s)


def allocation_table(jobs: list[dict[str, Any]]) -> pd.DataFrame:
    """Per configuration: its variance components (as sds), costs, and the rounds and time that reach the variance
    it reached, against its own."""
    found = []
    for job in jobs:
        timed = job["timed"]
        processes, rounds = len(timed["processes"]), timed["rounds"]
        if processes < 2 or rounds < 2:
            continue
        within, between = components(timed)
        process_s, round_s = costs(job)
        reached = (between + within / rounds) / processes
        best, then, seconds = _plan(within, between, process_s, round_s, reached)
        found.append({"config_id": job["config_id"], "processes": processes, "rounds": rounds,
                      "sd_within": math.sqrt(within), "sd_between": math.sqrt(between),
                      "between_share": between / (between + within / rounds), "process_s": process_s,
                      "round_s": round_s, "best_rounds": best, "processes_then": then,
                      "job_s": job["job_seconds"], "time_then": seconds / job["job_seconds"]})
    return pd.DataFrame(found)


def allocation_section(found: pd.DataFrame) -> list[str]:
    """The page's section: per configuration, where precision is cheapest."""
    if found.empty:
        return []
    spent, then = float(found.job_s.sum()), float((found.job_s * found.time_then).sum())
    return [
        "## Where processes or rounds buy precision", "",
        "Each configuration's rows split into the variance between fresh processes and within one (a round's), "
        "from the kept rounds, beside what a process and a round cost here (Kalibera and Jones' allocation; "
        "across_runs/calibration/allocation.py says how). `between_share`: the between part's share of a process "
        "mean's variance at the rounds timed. `best_rounds`: the rounds a process that buy the most precision a "
        f"machine second (with at least {ALLOCATION_MIN_PROCESSES} processes, fewer leaving a row's t interval on too "
        "few degrees of freedom); `processes_then`: the processes they need to the variance reached; `time_then`: "
        "that machine time over the job's.", "",
        found.drop(columns=["job_s"]).to_markdown(index=False, floatfmt=".3g"), "",
        f"At those rounds the calibration's lockstep jobs would reach the same variances in {then:.0f} s of "
        f"{spent:.0f} ({then / spent:.0%}): rounds are cheap beside a process's start and preparation wherever "
        "the processes agree; where they differ (between_share near 1) more processes, not rounds, buy precision. "
        "An estimate from one run's rounds, not yet a measured run.", "",
    ]
