"""Where a study job's processes or rounds buy precision (harness/allocation.py), from its own rows and costs:
the run summary names a job whose variance fewer machine seconds would reach."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ...harness import stats
from ...harness.allocation import MIN_PROCESSES, cheapest, variance_parts
from ...harness.sampling import MIN_ROUNDS

MORE_PROCESSES = 4  # a plan's processes at most this many times the job's
SAVING = 0.1  # a plan that saves less is within the model's own error: not shown
COLUMNS = ("within_var", "between_var", "round_s", "rounds_per_process")


def _rows(doc: dict[str, Any]) -> list[list[np.ndarray]]:
    """Each ratio's round log-ratios by process."""
    rows = []
    for c in doc["comparisons"]:
        if stats.is_difference(c["variant"], c["baseline"]):
            continue
        sides = [doc["variants"][name]["modes"][c["mode"]].get("processes") for name in (c["variant"], c["baseline"])]
        if sides[0] and sides[1]:
            rows.append([np.log(np.asarray(v["samples_s"]) / np.asarray(b["samples_s"]))
                         for v, b in zip(*sides, strict=True)])
    return [row for row in rows if all(len(x) > 1 for x in row)]


def variance_columns(doc: dict[str, Any]) -> dict[str, float]:
    """A job's variance parts, rounds per process (the rows' harmonic mean: a plan scales every mode's alike), a
    round's share of all rounds' wall; NaN for one process or an older result."""
    machine = doc["machine"]
    if doc.get("processes", 1) < 2 or any("rounds_s" not in m for m in machine.values()):
        return dict.fromkeys(COLUMNS, math.nan)
    rows = _rows(doc)
    if not rows:
        return dict.fromkeys(COLUMNS, math.nan)
    within, between = variance_parts(rows)
    rounds = 1 / float(np.mean([np.mean([1 / len(x) for x in row]) for row in rows]))
    walls = sum(m["rounds_s"] for m in machine.values())
    return {"within_var": within, "between_var": between, "round_s": walls / (rounds * doc["processes"]),
            "rounds_per_process": rounds}


def _plan(row: Any) -> tuple[int, int, float, float] | None:
    """A job's cheapest plan at the variance it reached (rounds, processes, seconds) and a process's cost, waits
    left out."""
    if not all(math.isfinite(getattr(row, c, math.nan)) for c in (*COLUMNS, "job_seconds")):
        return None
    processes, rounds = int(row.processes), float(row.rounds_per_process)
    waited = getattr(row, "waited_s", 0.0)  # the checks table's (job_checks.quietness)
    process_s = (row.job_seconds - (waited if math.isfinite(waited) else 0.0)) / processes - rounds * row.round_s
    reached = (row.between_var + row.within_var / rounds) / processes
    if not (reached > 0 and process_s > 0):
        return None
    least = min(MIN_PROCESSES, processes)  # a job run in fewer keeps its own
    found = cheapest(row.within_var, row.between_var, process_s, row.round_s, reached,
                     range(least, MORE_PROCESSES * processes + 1), MIN_ROUNDS)
    return None if found is None else (*found, process_s)


def allocation_lines(checks: pd.DataFrame) -> list[str]:
    """Each job its cheapest plan cuts by more than SAVING, then a count of the rest."""
    lines, near, planned = [], 0, 0
    for row in checks.itertuples():
        found = _plan(row)
        if found is None:
            continue
        planned += 1
        then_rounds, then_processes, then_s, process_s = found
        spent = row.processes * (process_s + row.rounds_per_process * row.round_s)  # the job less its waits
        if then_s >= (1 - SAVING) * spent:
            near += 1
            continue
        waited = f" (and {row.job_seconds - spent:.0f} s waiting for quiet)" if row.job_seconds - spent >= 0.5 else ""
        lines.append(f"`{row.config_id}`: {int(row.processes)} x {row.rounds_per_process:.3g} rounds in "
                     f"{spent:.0f} s{waited}; {then_processes} x {then_rounds} reach its variance in about "
                     f"{then_s:.0f} s (a process {process_s:.1f} s, a round {row.round_s:.2f} s; sd between its "
                     f"{int(row.processes)} processes {math.sqrt(row.between_var):.2%}, within one "
                     f"{math.sqrt(row.within_var):.2%})")
    if planned:
        lines.append(f"{near} of {planned} configurations within {SAVING:.0%} of their cheapest plan")
    return lines
