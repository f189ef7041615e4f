"""What a lockstep calibration's fresh processes tell beyond its rows' verdicts.

Split-process replication: each job's rows estimated again, as harness/moderated.py estimates a job, on two disjoint
halves of its processes. Where the intervals hold, the halves differ beyond their difference's 95% interval in 5% of
rows whatever each row's truth: a check that needs no known truth and no simulation.

Allocation (Kalibera and Jones, "Rigorous benchmarking in reasonable time", 2013): a row's variance over P processes
of R rounds is (between + within / R) / P at a machine time of P x (process + R x round), so the rounds that buy the
most precision a second are sqrt(process x within / (round x between)). Means of rounds stand for medians of rounds,
and rounds are taken as independent (rounds that drift buy less).
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
from ...harness.stats import Z_95, welch_df
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
    half = float(stdtrit(welch_df(a, first.df, b, second.df), 0.975)) * math.sqrt(a ** 2 + b ** 2)
    return abs(first.mean - second.mean) / half - 1


def splits(processes: int) -> Iterator[tuple[list[int], list[int]]]:
    """Every split of a job's processes into a half of processes // 2 and the rest, each partition once (with an
    even count, the half holding the first process)."""
    for half in itertools.combinations(range(processes), processes // 2):
        if processes % 2 == 0 and 0 not in half:
            continue
        yield list(half), [i for i in range(processes) if i not in half]


def job_margins(logs: np.ndarray) -> np.ndarray:
    """Per split (rows) and row of the job (columns): `_beyond` for its halves; `logs`: rows x processes."""
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
    effect = max(clustered.design_effect(judged.margin, beyond, judged.job),
                 clustered.design_effect(judged.margin, beyond, rows))
    effective = clustered.effective_rows(len(judged), effect, judged.job.nunique())
    low, high = clustered.interval(int(beyond.sum()), len(judged), effective)
    return {"comparisons": len(judged), "processes": tuple(sorted(set(judged.processes))), "rows": rows.nunique(),
            "splits": int(judged.split.nunique()), "jobs": int(judged.job.nunique()),
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


def split_line(found: dict[str, Any]) -> str:
    """The page's paragraph: the share against its target."""
    if not found:
        return (f"Split-process replication: no job had {SPLIT_MIN_PROCESSES} or more processes, so none was "
                "estimated on disjoint halves.")
    met = {"yes": "met", "no": "**missed**"}.get(
        clustered.against(found["share"], found["share_low"], found["share_high"], SPLIT_TARGET), "cannot tell")
    halves = sorted({n // 2 for n in found["processes"]} | {n - n // 2 for n in found["processes"]})
    return (f"**Split-process replication.** Every row estimated again on disjoint halves of its job's "
            f"{', '.join(map(str, found['processes']))} processes ({' and '.join(map(str, halves))} a half, every "
            f"split, the spread pooled in each half as in the job): the halves' estimates differed beyond their "
            f"difference's 95% interval (Welch's) in {found['share']:.1%} [{found['share_low']:.1%}, "
            f"{found['share_high']:.1%}] of {found['comparisons']} comparisons ({found['rows']} rows x "
            f"{found['splits']} splits; the interval over the {found['jobs']} jobs as clusters). Target "
            f"{SPLIT_TARGET[0]:.0%}-{SPLIT_TARGET[1]:.0%}: {met}. Where the intervals hold, 5% is expected whatever "
            "each row's truth: the check needs no known truth and no simulation, only that a job's processes are "
            "alike; it tests the estimator at the halves' processes, not at the job's. It judges all rows at "
            "once: a noisy row's too narrow interval beside quiet rows' too wide ones can average out (rows ranked "
            "by their own spread cannot be judged so: that spread holds the halves' difference itself).")


ALLOCATION_MIN_PROCESSES = 3  # fewer leave a row's t interval on too few degrees of freedom, whatever the variance says
MAX_ROUNDS = 1000  # where processes agree exactly: the rounds a process is capped at
GATE_CHANGE, Z_POWER_90 = 0.10, 1.2816  # the slowdown the gate must find in 90% of runs; that power's normal quantile
PRECISE_ROWS = 0.8  # the share of each configuration's rows the precision plan brings to the gate's half-width


def gate_half_width(threshold: float) -> float:
    """The half-width (log) where a row slowed GATE_CHANGE clears `threshold` in 90% of runs, uncorrected."""
    return math.log((1 + GATE_CHANGE) / (1 + threshold)) * Z_95 / (Z_95 + Z_POWER_90)


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
    """A process's and a round's machine time in the job (s): a round's as the job watched it (every mode's), or
    where it kept no watch, its samples' time alone."""
    timed = job["timed"]
    processes, rounds = len(timed["processes"]), timed["rounds"]
    if timed.get("machine"):
        spent = sum(r["wall_s"] for p in timed["machine"] for mode in p.values() for r in mode)
    else:
        calls = timed["calls_per_sample"]
        spent = sum(float(np.sum(xs)) * calls[mode][variant] for p in timed["processes"] for side in timed["sides"]
                    for mode, variants in p[side].items() for variant, xs in variants.items())
    return (job["job_seconds"] - spent) / processes, spent / processes / rounds


def _plan(within: float, between: float, process_s: float, round_s: float, variance: float) -> tuple[int, int, float]:
    """The rounds a process that buy the most precision a second, the whole processes (at least
    ALLOCATION_MIN_PROCESSES) that reach `variance` at them, the fewest rounds that reach it with those processes,
    and the machine time so."""
    best = math.sqrt(process_s * within / (round_s * between)) if between > 0 else MAX_ROUNDS
    rounds = int(min(MAX_ROUNDS, max(1, round(best))))
    processes = max(ALLOCATION_MIN_PROCESSES, math.ceil((between + within / rounds) / variance - 1e-9))
    if processes * variance > between:  # whole processes may need fewer rounds than the optimum
        rounds = min(rounds, max(1, math.ceil(within / (processes * variance - between) - 1e-9)))
    return rounds, processes, processes * (process_s + rounds * round_s)


def _widest(table: pd.DataFrame | None, config_id: str) -> float:
    """The half-width (log scale) PRECISE_ROWS of a configuration's rows are within; nan without rows."""
    rows = table[table.config_id == config_id] if table is not None else None
    if rows is None or rows.empty:
        return math.nan
    return float(np.quantile(np.log(rows.ratio_ci_high / rows.ratio_ci_low) / 2, PRECISE_ROWS))


def allocation_table(jobs: list[dict[str, Any]], table: pd.DataFrame | None = None,
                     threshold: float = 0.05) -> pd.DataFrame:
    """Per configuration: its variance components (as sds), costs, the rounds and processes that reach the
    variance it reached and their time over its own; then (`table`: its rows) those that bring PRECISE_ROWS of its
    rows to the gate's half-width (scaled by the variance at the run's t), none less precise than now."""
    found = []
    for job in jobs:
        timed = job["timed"]
        processes, rounds = len(timed["processes"]), timed["rounds"]
        if processes < 2 or rounds < 2:
            continue
        within, between = components(timed)
        reached = (between + within / rounds) / processes
        if not reached > 0:
            continue
        process_s, round_s = costs(job)
        best, then, seconds = _plan(within, between, process_s, round_s, reached)
        widest = _widest(table, job["config_id"])
        goal = reached * min(1.0, (gate_half_width(threshold) / widest) ** 2) if math.isfinite(widest) else math.nan
        precise = _plan(within, between, process_s, round_s, goal) if math.isfinite(goal) else (math.nan,) * 3
        found.append({"config_id": job["config_id"], "processes": processes, "rounds": rounds,
                      "sd_within": math.sqrt(within), "sd_between": math.sqrt(between),
                      "between_share": between / (between + within / rounds), "process_s": process_s,
                      "round_s": round_s, "rounds_then": best, "processes_then": then,
                      "job_s": job["job_seconds"], "time_then": seconds / job["job_seconds"],
                      "half_width": math.expm1(widest), "rounds_precise": precise[0],
                      "processes_precise": precise[1], "time_precise": precise[2] / job["job_seconds"]})
    return pd.DataFrame(found)


def _reading(found: pd.DataFrame) -> str:
    """What the table says, from its rows: where more rounds and where more processes would buy the precision."""
    fewer = found[found.processes_then < found.processes]
    more = found[found.processes_then > found.processes]
    parts = [f"{len(fewer)} of {len(found)} configurations would reach it in fewer processes of more rounds "
             f"(their processes' share of the variance {fewer.between_share.min():.0%}-"
             f"{fewer.between_share.max():.0%})" if len(fewer) else "",
             f"{len(more)} in more processes of fewer rounds ({more.between_share.min():.0%}-"
             f"{more.between_share.max():.0%})" if len(more) else ""]
    return "; ".join(p for p in parts if p) or "every configuration keeps its processes"


def _precise_line(found: pd.DataFrame, threshold: float, spent: float) -> str:
    """What the gate's precision would cost (`spent`: the jobs' time)."""
    if not found.time_precise.notna().any():
        return ""
    precise = float((found.job_s * found.time_precise).sum())
    added = (found.job_s * (found.time_precise - 1)).sort_values(ascending=False)
    most = ", ".join(f"{found.config_id[i].split('-')[0]} {found.processes_precise[i]:.0f} x "
                     f"{found.rounds_precise[i]:.0f} (+{added[i]:.0f} s)" for i in added.index[:3] if added[i] > 0)
    return (f"To the gate's precision: `half_width` is the half-width {PRECISE_ROWS:.0%} of a configuration's rows "
            f"are within, and `rounds_precise`, `processes_precise`, `time_precise` the plan that brings it to "
            f"±{math.expm1(gate_half_width(threshold)):.1%}, where a row slowed {GATE_CHANGE:.0%} clears the "
            f"{threshold:.0%} threshold in 90% of runs before the gate's correction (no configuration less precise "
            f"than now): {precise:.0f} s of lockstep jobs ({precise / 60:.0f} min) against this run's {spent:.0f}"
            + (f", most of the rest in {most}." if most else "."))


def allocation_section(found: pd.DataFrame, threshold: float = 0.05) -> list[str]:
    """The page's section: where precision is cheapest, and what the gate's costs."""
    if found.empty:
        return []
    spent, then = float(found.job_s.sum()), float((found.job_s * found.time_then).sum())
    precise = _precise_line(found, threshold, spent)
    return [
        "## Where processes or rounds buy precision", "",
        "Each configuration's rows split into the variance between fresh processes and within one (a round's), "
        "from the kept rounds, beside what a process and a round cost here (Kalibera and Jones' allocation; "
        "across_runs/calibration/between_processes.py says how). `between_share`: the between part's share of a "
        "process mean's variance at the rounds timed. `rounds_then`, `processes_then`: the rounds a process that "
        "buy the most precision a machine second and the whole processes (at least "
        f"{ALLOCATION_MIN_PROCESSES}, fewer leaving a row's t interval on too few degrees of freedom) that reach "
        "the variance this run reached; `time_then`: that machine time over the job's.", "",
        found.drop(columns=["job_s"]).dropna(axis=1, how="all").to_markdown(index=False, floatfmt=".3g"), "",
        f"So allocated, the calibration's lockstep jobs would reach the same variances in {then:.0f} s of "
        f"{spent:.0f} ({then / spent:.0%}): {_reading(found)}. An estimate from one run's rounds (each "
        "configuration's between part on its processes less one degrees of freedom), not a measured run.", "",
        *([precise, ""] if precise else []),
    ]
