"""What XLA planned each benchmark-file variant's largest program to hold, in two runs or on two lockstep sides: the
compiler plans one program alike on every run of one backend and XLA version, so a plan that moved is a changed
program (code, shapes, flags, XLA, the backend; on a GPU, autotuning may move temporaries), no interval needed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...formatting import bytes_unit
from ...harness.program_memory import widest_each
from ...harness.stats import is_twin

PARTS = ("total", "temporary", "argument", "output", "donated")
COLUMNS = ["study", "config_id", "variant", "change", *(f"{side}_{part}_bytes" for part in PARTS
                                                       for side in ("baseline", "current")),
           "baseline_programs", "current_programs"]


def _row(study: str, config_id: str, variant: str, old: dict[str, int], new: dict[str, int]) -> dict[str, Any]:
    return {"study": study, "config_id": config_id, "variant": variant,
            "change": new["total_bytes"] / old["total_bytes"] if old["total_bytes"] else None,
            **{f"{side}_{part}_bytes": plan[f"{part}_bytes"] for part in PARTS
               for side, plan in (("baseline", old), ("current", new))},
            "baseline_programs": old["programs"], "current_programs": new["programs"]}


def _plans(doc: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {name: v["program_memory"] for name, v in doc["variants"].items()
            if "program_memory" in v and not is_twin(name)}


def plans(baseline: dict[tuple[str, str], dict], current: dict[tuple[str, str], dict]) -> pd.DataFrame:
    """Each variant planned on both sides: both plans, their totals' current / baseline, and how many programs."""
    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = _plans(baseline[key]), _plans(current[key])
        rows += [_row(*key, v, before[v], after[v]) for v in sorted(set(before) & set(after))]
    table = pd.DataFrame(rows, columns=COLUMNS)
    table.attrs["planned_here_only"] = (not rows and any(_plans(doc) for doc in current.values())
                                        and not any(_plans(doc) for doc in baseline.values()))
    return table


def sides(docs: list[dict[str, Any]]) -> pd.DataFrame:
    """Lockstep jobs: each side's plans (the largest over its workers) against the first side's, as `baseline_*`."""
    rows = []
    for doc in docs:
        described = doc["timed"]["descriptions"]
        (first, *others) = described
        planned = {side: widest_each(found for w in workers for found in (w.get("program_memory") or {}).items())
                   for side, workers in described.items()}
        timed = set(doc.get("lockstep", {}).get("variants") or planned[first])  # compare.variants, where named
        rows += [{"side": side} | _row(doc["study"], doc["config_id"], v, planned[first][v], planned[side][v])
                 for side in others for v in sorted(set(planned[first]) & set(planned[side]) & timed)]
    return pd.DataFrame(rows, columns=["side", *COLUMNS])


def _moved(table: pd.DataFrame) -> pd.DataFrame:
    return table[np.any([table[f"baseline_{p}_bytes"] != table[f"current_{p}_bytes"] for p in PARTS], axis=0)]


def brief(table: pd.DataFrame | None) -> list[str]:
    """compare.md's "In brief" line on memory: how many plans moved, the largest change first."""
    if table is None or not len(table):
        return []
    moved = _moved(table).sort_values("change", key=lambda c: abs(np.log(c)), ascending=False)
    first = "" if moved.empty else (f": the most `{moved.variant.iloc[0]}` at {moved.config_id.iloc[0]}, "
                                    f"{moved.change.iloc[0]:.3f}x")
    return [f"Memory plans (exact): {len(moved)} of {len(table)} moved{first} (\"Memory plans\" below).", ""]


def section(table: pd.DataFrame | None, where: str = "in the baseline run (`baseline_*`) and this one") -> list[str]:
    """The plans that moved (any part), for compare.md and compare_lockstep.md, in a unit a person reads (the
    CSV keeps bytes); nothing where no benchmark file was planned on both sides."""
    if table is None or not len(table):
        return ["The baseline's results hold no memory plans (timed before they were kept): none compared.", ""] \
            if table is not None and table.attrs.get("planned_here_only") else []
    moved = _moved(table)
    unit, size = bytes_unit(float(table[["baseline_total_bytes", "current_total_bytes"]].max().max()))
    shown = moved[[c for c in ("side", "study", "config_id", "variant", "change") if c in moved]].assign(**{
        f"{side}_{part}_{unit.lower()}": moved[f"{side}_{part}_bytes"] / size
        for part in ("total", "temporary") for side in ("baseline", "current")},
        total_difference_bytes=moved.current_total_bytes - moved.baseline_total_bytes)
    return ["## Memory plans: the largest program of each benchmark file's variant", "",
            f"What XLA plans the buffers of each variant's largest program to take (per device), {where}: "
            f"{len(moved)} of {len(table)} moved. One program on one backend and XLA version plans alike on every "
            "run, so a move is a changed program (your code, its shapes, XLA flags, XLA, the backend; on a GPU, "
            "autotuning may move temporaries), with no interval; `change` is current / baseline of the totals "
            "(arguments, outputs less donated, temporaries: 0.82 is 18% less). A call of several programs also "
            "holds arrays between them, in no plan. Every part, in bytes: `results/tables/compare_memory_plans.csv`.",
            "",
            shown.to_markdown(index=False, floatfmt=".4g") if len(moved) else "_(no plan moved)_", ""]
