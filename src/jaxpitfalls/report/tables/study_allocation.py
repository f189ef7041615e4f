"""Where a study job's processes or rounds buy precision (harness/allocation.py), from its own rows and costs:
the run summary names a job whose precision fewer machine seconds would reach."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ...harness import stats
from ...harness.allocation import cheapest, variance_parts
from ...harness.sampling import MIN_ROUNDS

MIN_PROCESSES = 2  # the fewest that show a spread between processes (harness/processes.py pools over them)
MORE_PROCESSES = 4  # a plan's processes at most this many times the job's
SAVING = 0.1  # a plan that saves less is within the model's own error: not shown
COLUMNS = ("within_var", "between_var", "round_s", "rounds_per_process")


def _rows(doc: dict[str, Any]) -> list[list[np.ndarray]]:
    """Each ratio's round log-ratios, per process."""
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
    """A job's variance parts, rounds per process (its modes' mean) and a round's cost (its samplers' wall); NaN
    for one process or an older result."""
    machine, rows = doc["machine"], _rows(doc)
    if doc.get("processes", 1) < 2 or not rows or any("sampled_s" not in m for m in machine.values()):
        return dict.fromkeys(COLUMNS, math.nan)
    within, between = variance_parts(rows)
    rounds = float(np.mean([m["rounds_kept"] for m in machine.values()])) / doc["processes"]
    sampled = sum(sum(m["sampled_s"].values()) for m in machine.values())
    return {"within_var": within, "between_var": between, "round_s": sampled / (rounds * doc["processes"]),
            "rounds_per_process": rounds}


def allocation_lines(checks: pd.DataFrame) -> list[str]:
    """Each job the cheapest plan reaching its variance would cut by more than SAVING, then a count of the rest."""
    lines, near = [], 0
    found = [row for row in checks.itertuples()
             if all(math.isfinite(getattr(row, c, math.nan)) for c in COLUMNS) and row.job_seconds]
    for row in found:
        processes, rounds = int(row.processes), float(row.rounds_per_process)
        process_s = row.job_seconds / processes - rounds * row.round_s
        reached = (row.between_var + row.within_var / rounds) / processes
        then_rounds, then_processes, then_s = cheapest(row.within_var, row.between_var, process_s, row.round_s,
                                                       reached, range(MIN_PROCESSES, MORE_PROCESSES * processes + 1),
                                                       MIN_ROUNDS)
        if then_s >= (1 - SAVING) * row.job_seconds:
            near += 1
            continue
        lines.append(f"`{row.config_id}`: {processes} x {rounds:.3g} rounds in {row.job_seconds:.0f} s; "
                     f"{then_processes} x {then_rounds} reach its precision in about {then_s:.0f} s (a process "
                     f"{process_s:.1f} s, a round {row.round_s:.2f} s; sd between processes "
                     f"{math.sqrt(row.between_var):.2%}, within one {math.sqrt(row.within_var):.2%})")
    if found:
        lines.append(f"{near} of {len(found)} configurations within {SAVING:.0%} of their cheapest plan")
    return lines
