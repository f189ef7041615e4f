"""Where a lockstep calibration's processes or rounds buy precision (harness/allocation.py: Kalibera and Jones),
and the cheapest plan that brings the share of rows the gate needs within its half-width."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from ...harness import allocation as kalibera_jones
from ...harness import clustered
from ...harness.stats import Z_95, rows_needed

GATE_CHANGE, Z_POWER_90 = 0.10, 1.2816  # the slowdown the gate must find in 90% of runs; that power's normal quantile
PRECISE_ROWS = 0.8  # the share of all a run's rows the precision plan brings to the gate's half-width
NOISIER_DAY = 1.5  # the processes a plan may grow to, over its own, where a day's variance is larger than planned
Plan = tuple[int, int, float, int]  # rounds, processes, machine seconds, rows brought within the gate


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
    """The job's rows' variance within a process and between processes."""
    return kalibera_jones.variance_parts(_row_logs(timed))


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


def _half_widths(table: pd.DataFrame, config_id: str | None) -> np.ndarray:
    """A configuration's rows' half-widths (log), every row's where None; inf where not estimated."""
    rows = table if config_id is None else table[table.config_id == config_id]
    with np.errstate(divide="ignore", invalid="ignore"):
        found = np.log(rows.ratio_ci_high / rows.ratio_ci_low).to_numpy(dtype=float) / 2
    return np.where(np.isfinite(found), found, np.inf)


def at_gate(table: pd.DataFrame, threshold: float) -> tuple[int, int, float, float, float]:
    """A lockstep table's rows within the gate's half-width, all its rows, that half-width (relative), and the
    share's 95% interval with its configurations as clusters (their rows share processes)."""
    widths, gate = _half_widths(table, None), gate_half_width(threshold)
    within, configurations = pd.Series(widths <= gate), table.config_id.reset_index(drop=True)
    _, low, high = clustered.share_interval(pd.Series(1 - widths / gate), within, configurations)
    return int(within.sum()), len(widths), math.expm1(gate), low, high


@dataclass(frozen=True)
class _Job:
    """One configuration's variance parts, costs, allocation run, and rows' half-widths and df."""

    within: float
    between: float
    process_s: float
    round_s: float
    processes: int
    rounds: int
    widths: np.ndarray = field(default_factory=lambda: np.empty(0))
    df: np.ndarray = field(default_factory=lambda: np.empty(0))

    @property
    def reached(self) -> float:
        return (self.between + self.within / self.rounds) / self.processes

    def plan(self, variance: float) -> tuple[int, int, float]:
        return kalibera_jones.plan(self.within, self.between, self.process_s, self.round_s, variance,
                                   kalibera_jones.MIN_PROCESSES)

    def then(self, rounds: int, processes: int) -> np.ndarray:
        """The rows' half-widths at `processes` x `rounds`: by the variance and the t quantile then (a row's df
        changes by one a process, its prior's kept)."""
        variance = (self.between + self.within / rounds) / processes
        df = np.maximum(self.df + processes - self.processes, processes - 1)
        with np.errstate(invalid="ignore"):
            return self.widths * math.sqrt(variance / self.reached) * stdtrit(df, 0.975) / stdtrit(self.df, 0.975)


def _options(job: _Job, gate: float) -> dict[int, Plan]:
    """Per count of a configuration's rows brought within `gate`, the cheapest plan bringing them, no row wider
    than now."""
    seconds, met_now = job.processes * (job.process_s + job.rounds * job.round_s), int((job.widths <= gate).sum())
    options = {met_now: (job.rounds, job.processes, seconds, met_now)}
    finite = job.widths[np.isfinite(job.widths)]
    for target in [job.reached, *job.reached * (gate / finite) ** 2]:
        variance = min(job.reached, float(target))
        for _ in range(2):  # once more where the t quantile then widens the rows
            rounds, processes, seconds = job.plan(variance)
            then = job.then(rounds, processes)
            with np.errstate(invalid="ignore"):
                wider = float(np.nanmax(then / job.widths, initial=1.0))
            if wider <= 1 + 1e-9:
                met = int((then <= gate).sum())
                if met not in options or seconds < options[met][2]:
                    options[met] = (rounds, processes, seconds, met)
            variance /= max(wider, 1.0) ** 2 * (1 + 1e-6)
    return options


def _cheapest(options: list[dict[int, Plan]], need: int) -> list[Plan] | None:
    """One plan a configuration: the least summed time bringing `need` rows within the gate (a knapsack); None
    where none does."""
    best: dict[int, tuple[float, list[Plan]]] = {0: (0.0, [])}
    for choices in options:
        step: dict[int, tuple[float, list[Plan]]] = {}
        for got, (spent, plans) in best.items():
            for met, plan in choices.items():
                key = min(need, got + met)
                if key not in step or spent + plan[2] < step[key][0]:
                    step[key] = (spent + plan[2], [*plans, plan])
        best = step
    return best[need][1] if need in best else None


def _precise(found: pd.DataFrame, parts: list[_Job], table: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """`found` with each configuration's share within the gate's half-width now, and then under the cheapest plan
    bringing PRECISE_ROWS of all rows there."""
    gate = gate_half_width(threshold)
    jobs = [replace(part, widths=_half_widths(table, config_id),
                    df=table[table.config_id == config_id].df.to_numpy(dtype=float))
            for part, config_id in zip(parts, found.config_id, strict=True)]
    if not all(len(j.widths) for j in jobs):
        return found
    plans = _cheapest([_options(j, gate) for j in jobs], math.ceil(PRECISE_ROWS * sum(len(j.widths) for j in jobs)))
    if plans is None:
        return found
    return found.assign(rows=[len(j.widths) for j in jobs], at_gate=[float(np.mean(j.widths <= gate)) for j in jobs],
                        rounds_precise=[p[0] for p in plans], processes_precise=[p[1] for p in plans],
                        time_precise=np.array([p[2] for p in plans]) / found.job_s,
                        at_gate_precise=[p[3] / len(j.widths) for p, j in zip(plans, jobs, strict=True)])


def allocation_table(jobs: list[dict[str, Any]], table: pd.DataFrame | None = None,
                     threshold: float = 0.05) -> pd.DataFrame:
    """Per configuration: its variance components (as sds), costs, the rounds and processes that reach the
    variance it reached and their time over its own; then (`table`: its rows) the plan that brings PRECISE_ROWS of
    the run's rows to the gate's half-width at the least summed time (`_precise`)."""
    found, parts = [], []
    for job in jobs:
        timed = job["timed"]
        processes, rounds = len(timed["processes"]), timed["rounds"]
        if processes < 2 or rounds < 2:
            continue
        part = _Job(*components(timed), *costs(job), processes, rounds)
        if not part.reached > 0:
            continue
        best, then, seconds = part.plan(part.reached)
        found.append({"config_id": job["config_id"], "processes": processes, "rounds": rounds,
                      "sd_within": math.sqrt(part.within), "sd_between": math.sqrt(part.between),
                      "between_share": part.between / part.reached / processes, "process_s": part.process_s,
                      "round_s": part.round_s, "rounds_then": best, "processes_then": then,
                      "job_s": job["job_seconds"], "time_then": seconds / job["job_seconds"]})
        parts.append(part)
    found = pd.DataFrame(found)
    return _precise(found, parts, table, threshold) if table is not None and parts else found


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


def _share(share: float, rows: int) -> str:
    """The shortest decimal share that asks a job of `rows` rows for the planned ones."""
    planned = round(share * rows)
    for digits in range(1, 7):
        short = math.floor(planned / rows * 10**digits + 1e-9) / 10**digits
        if rows_needed(short, rows) == planned:
            return f"{short:g}"
    return f"{planned / rows:g}"


def _precise_lines(found: pd.DataFrame, threshold: float, spent: float) -> list[str]:
    """What the gate's precision would cost (`spent`: the jobs' time), and its plan as config."""
    if "time_precise" not in found:
        return []
    precise = float((found.job_s * found.time_precise).sum())
    now = float((found.at_gate * found.rows).sum() / found.rows.sum())
    plan = [f"    {r.config_id}: {{processes: {r.processes_precise}, rounds: {r.rounds_precise}, "
            + (f"target_share: {_share(r.at_gate_precise, r.rows)}, max_processes: "
               f"{math.ceil(NOISIER_DAY * r.processes_precise)}}}" if r.at_gate_precise > 0
               else f"max_processes: {r.processes_precise}}}") for r in found.itertuples()]
    target = math.floor(math.sinh(gate_half_width(threshold)) * 1e4) / 1e4  # the half-width as jobs read it
    return [f"To the gate's precision: `at_gate` is the share of a configuration's rows within "
            f"±{math.expm1(gate_half_width(threshold)):.1%}, where a row slowed {GATE_CHANGE:.0%} clears the "
            f"{threshold:.0%} threshold in 90% of runs before the gate's correction ({now:.0%} of this run's rows); "
            f"`rounds_precise`, `processes_precise`, `time_precise` the cheapest plan that brings {PRECISE_ROWS:.0%} "
            "of all rows there, no row's interval wider than now (`at_gate_precise`: its share then; a prediction): "
            f"{precise:.0f} s of lockstep jobs ({precise / 60:.0f} min) against this run's {spent:.0f}. As the "
            "config sets it, each job from its planned processes adding one at a time until its planned share of "
            f"rows is within the gate's half-width, at most {NOISIER_DAY:g} times as many (a noisier day than "
            "this run's costs more; a fixed plan would lose the precision instead):", "", "```yaml", "compare:",
            f"  target_precision: {target:g}", "  allocation:", *plan, "```", ""]


def allocation_section(found: pd.DataFrame, threshold: float = 0.05) -> list[str]:
    """The page's section: where precision is cheapest, and what the gate's costs."""
    if found.empty:
        return []
    spent, then = float(found.job_s.sum()), float((found.job_s * found.time_then).sum())
    return [
        "## Where processes or rounds buy precision", "",
        "Each configuration's rows split into the variance between fresh processes and within one (a round's), "
        "from the kept rounds, beside what a process and a round cost here (Kalibera and Jones' allocation; "
        "across_runs/calibration/allocation.py says how). `between_share`: the between part's share of a "
        "process mean's variance at the rounds timed. `rounds_then`, `processes_then`: the rounds a process that "
        "buy the most precision a machine second and the whole processes (at least "
        f"{kalibera_jones.MIN_PROCESSES}, fewer leaving a row's t interval on too few degrees of freedom) that reach "
        "the variance this run reached; `time_then`: that machine time over the job's.", "",
        found.drop(columns=["job_s"]).dropna(axis=1, how="all").to_markdown(index=False, floatfmt=".3g"), "",
        f"So allocated, the calibration's lockstep jobs would reach the same variances in {then:.0f} s of "
        f"{spent:.0f} ({then / spent:.0%}): {_reading(found)}. An estimate from one run's rounds (each "
        "configuration's between part on its processes less one degrees of freedom), not a measured run.", "",
        *_precise_lines(found, threshold, spent),
    ]
