"""What XLA planned each benchmark-file variant's largest program to hold, in both runs: the compiler's figure is the
same on every run of one program, so a plan that moved is a changed program (code, shapes, flags or XLA), no
interval needed."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...harness.stats import is_twin

COLUMNS = ["study", "config_id", "variant", "baseline_peak_bytes", "current_peak_bytes", "change",
           "baseline_programs", "current_programs"]


def _plans(doc: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {name: v["program_memory"] for name, v in doc["variants"].items()
            if "program_memory" in v and not is_twin(name)}


def plans(baseline: dict[tuple[str, str], dict], current: dict[tuple[str, str], dict]) -> pd.DataFrame:
    """Each variant planned on both sides: both peaks, current / baseline, and how many programs each planned."""
    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = _plans(baseline[key]), _plans(current[key])
        for variant in sorted(set(before) & set(after)):
            old, new = before[variant], after[variant]
            rows.append({"study": key[0], "config_id": key[1], "variant": variant,
                         "baseline_peak_bytes": old["peak_bytes"], "current_peak_bytes": new["peak_bytes"],
                         "change": new["peak_bytes"] / old["peak_bytes"] if old["peak_bytes"] else None,
                         "baseline_programs": old["programs"], "current_programs": new["programs"]})
    return pd.DataFrame(rows, columns=COLUMNS)


def section(table: pd.DataFrame) -> list[str]:
    """The plans that moved, for compare.md; nothing where neither run planned one (no benchmark file)."""
    if not len(table):
        return []
    moved = table[table.baseline_peak_bytes != table.current_peak_bytes]
    return ["## Memory plans: the largest program of each benchmark file's variant", "",
            f"XLA's plan of the most a variant's largest program holds at once (per device), before and after: "
            f"{len(moved)} of {len(table)} moved. The compiler plans one program the same on every run, so a move "
            "is a changed program (your code, its shapes, XLA flags or XLA itself), with no interval; a call of "
            "several programs (`*_programs` above 1) also holds arrays between them, in no plan.", "",
            moved.to_markdown(index=False, floatfmt=".4g") if len(moved) else "_(no plan moved)_", ""]
