"""A benchmark file's memory plans across releases: the total XLA plans for each variant's largest program's
buffers, per release (the largest over its jobs), and where it moved. One program on one backend and XLA version
plans alike on every run, so a move between releases is the release's doing (or its XLA's): told without a fit."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...formatting import bytes_unit
from ...harness.program_memory import widest_each
from ...harness.stats import is_twin

COLUMNS = ["release", "config_id", "variant", "total_bytes", "temporary_bytes", "argument_bytes", "output_bytes",
           "donated_bytes", "programs"]


def plans_table(measured: dict[str, list[dict[str, Any]]]) -> pd.DataFrame:
    """Each release's plan per configuration and variant, in the releases' order."""
    rows = []
    for release, docs in measured.items():
        found = widest_each(((doc["config_id"], variant), entry.get("program_memory")) for doc in docs
                            for variant, entry in doc["variants"].items() if not is_twin(variant))
        rows += [{"release": release, "config_id": c, "variant": v} | plan for (c, v), plan in found.items()]
    return pd.DataFrame(rows, columns=COLUMNS)


def _moves(series: pd.Series, package: str, unit: str, size: int) -> list[str]:
    """`0.9.2 -> 0.10.0: 12.5 -> 16 MiB` for each release whose total differs from the release before it."""
    kept = series.dropna()
    return [f"{package} {a} -> {b}: {kept[a] / size:.4g} -> {kept[b] / size:.4g} {unit}"
            for a, b in zip(kept.index, kept.index[1:], strict=False) if kept[a] != kept[b]]


def section(table: pd.DataFrame, package: str) -> list[str]:
    """reports/history.md's memory section: the moves, then each release's totals; nothing without a plan."""
    if table.empty:
        return []
    unit, size = bytes_unit(float(table.total_bytes.max()))
    totals = table.pivot_table(index=["config_id", "variant"], columns="release", values="total_bytes", sort=False)
    totals = totals[list(dict.fromkeys(table.release))]
    moves = [f"- `{config_id}` `{variant}`: " + "; ".join(found)
             for (config_id, variant), row in totals.iterrows() if (found := _moves(row, package, unit, size))]
    return ["## Memory plans across releases", "",
            f"The total XLA plans for each variant's largest program's buffers (arguments, outputs less donated, "
            f"temporaries; per device), in {unit}, release by release (every part in bytes: "
            "`results/tables/history_memory_plans.csv`). One program on one backend and XLA version plans alike "
            "on every run, so a move is the release's (or its XLA's), with no interval: "
            f"{len(moves)} of {len(totals)} moved.", "", *moves, *([""] if moves else []),
            (totals / size).reset_index().to_markdown(index=False, floatfmt=".4g"), ""]
