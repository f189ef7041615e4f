"""What XLA planned each benchmark-file variant's largest program to hold, in two runs or on two lockstep sides: the
compiler's figure is the same on every run of one program, so a plan that moved is a changed program (code,
shapes, flags or XLA), no interval needed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

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
    return pd.DataFrame(rows, columns=COLUMNS)


def sides(docs: list[dict[str, Any]]) -> pd.DataFrame:
    """Lockstep jobs: each side's plans (its first worker's) against the first side's, `baseline_*` the first's."""
    rows = []
    for doc in docs:
        described = doc["timed"]["descriptions"]
        (first, *others) = described
        planned = {side: {v: p for v, p in (found[0].get("program_memory") or {}).items() if p}
                   for side, found in described.items()}
        rows += [_row(doc["study"], doc["config_id"], v, planned[first][v], planned[side][v]) | {"side": side}
                 for side in others for v in sorted(set(planned[first]) & set(planned[side]))]
    return pd.DataFrame(rows, columns=[*COLUMNS, "side"])


def section(table: pd.DataFrame, sides: str = "in the baseline run and this one") -> list[str]:
    """The plans that moved (any part), for compare.md; nothing where no benchmark file was planned on both."""
    if not len(table):
        return []
    moved = table[np.any([table[f"baseline_{p}_bytes"] != table[f"current_{p}_bytes"] for p in PARTS], axis=0)]
    return ["## Memory plans: the largest program of each benchmark file's variant", "",
            f"What XLA plans the buffers of each variant's largest program to take (per device), {sides}: "
            f"{len(moved)} of {len(table)} moved. The compiler plans one program the same on every run, so a move "
            "is a changed program (your code, its shapes, XLA flags or XLA itself), with no interval; `change` is "
            "the totals' (arguments, outputs less donated, temporaries). A call of several programs (`*_programs` "
            "above 1) also holds arrays between them, in no plan.", "",
            moved.to_markdown(index=False, floatfmt=".4g") if len(moved) else "_(no plan moved)_", ""]
