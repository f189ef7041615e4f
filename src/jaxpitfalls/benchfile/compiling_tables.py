"""The report's tables of a benchmark file's compiling calls: first runs (FIRST_RUN) and RECOMPILES' warm calls,
each split into tracing, lowering and XLA's compiling. JAX-free."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..contract.decisions import interval
from ..contract.tables import measured
from ..harness.stats import COMPILING_STAGES
from .expectations import FIRST_RUN_MODE


def _staged(rows: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Compiling calls' medians by stage (ms): JAX's tracing and lowering where the results kept them, XLA's
    compiling, and its share of the call."""
    stages = [s for s in COMPILING_STAGES if s != "compile" and f"{s}_median_ms" in rows]
    shown = rows.assign(**{f"{s}_ms": rows[f"{s}_median_ms"] for s in stages}, compiling_ms=rows.compile_median_ms,
                        compiling_share=rows.compile_median_ms / rows.median_ms)
    return shown, [*(f"{s}_ms" for s in stages), "compiling_ms", "compiling_share"]


STAGES_SAID = ("`tracing_ms` and `lowering_ms`: JAX's tracing of the function to a jaxpr and lowering it to a module "
               "(the medians of its spans in a call, where this run kept them: paid before any persistent cache is "
               "read, whose key is the lowered module); `compiling_ms`: XLA's compiling (JAX's backend-compile "
               "events), its share of the call beside; the rest is dispatching and running")


def _compiling_vs(first: pd.DataFrame, comp: pd.DataFrame, floor: str) -> pd.Series:
    """Each variant's XLA compile time over the floor's, with its 95% interval; blank where there is none."""
    comp = measured(comp)
    rows = comp[(comp["mode"] == FIRST_RUN_MODE) & (comp.baseline == floor)] if "compile_ratio" in comp else comp[:0]
    said = {(r.config_id, r.variant): interval(r.compile_ratio, r.compile_ratio_ci_low, r.compile_ratio_ci_high, "x")
            for r in rows.itertuples() if pd.notna(r.compile_ratio)}
    return pd.Series([said.get(key, "") for key in zip(first.config_id, first.variant, strict=True)],
                     index=first.index)


def first_runs(steps: pd.DataFrame, comp: pd.DataFrame, floor: str) -> list[tuple[str, str, pd.DataFrame]]:
    """A FIRST_RUN file's first calls: their median, what tracing, lowering and compiling took in one, and the
    compile time's ratio to the floor's."""
    first = steps[steps["mode"] == FIRST_RUN_MODE]
    if first.empty or "compile_median_ms" not in first:
        return []
    shown, stages = _staged(first.assign(first_call_ms=first.median_ms))
    shown = shown.assign(**{f"compiling_vs_{floor}": _compiling_vs(first, comp, floor)})
    return [("What a first call costs",
             f"Each variant's first call from cleared caches (`first_run`): its median over processes; {STAGES_SAID} "
             f"(the persistent cache off); `compiling_vs_{floor}`: its compiling over the floor's, paired by round, "
             "with its 95% interval over processes.",
             shown[["config_id", "variant", "first_call_ms", *stages, f"compiling_vs_{floor}"]].reset_index(drop=True))]


def recompiling(steps: pd.DataFrame, recompiles: Mapping[str, str]) -> list[tuple[str, str, pd.DataFrame]]:
    """RECOMPILES' variants in the warm modes: a call's median, and what tracing, lowering and compiling took."""
    warm = steps[steps.variant.isin(list(recompiles)) & (steps["mode"] != FIRST_RUN_MODE)]
    if warm.empty or "compile_median_ms" not in warm:
        return []
    shown, stages = _staged(warm.assign(call_ms=warm.median_ms, why=warm.variant.map(recompiles),
                                        compiles_demonstrated=warm.compiles_in_timed_region))
    return [("What compiling in every call costs",
             "The variants the file declares to compile in every call (`RECOMPILES`, why beside): every timed call of "
             f"theirs compiled (a sample that did not fails the job), with the persistent cache off; {STAGES_SAID}; "
             "`compiles_demonstrated`: the checks table's, by variant and mode, over every process. What recompiling "
             "adds to a call is its difference to the floor (the ratios table); its ratio grows as the floor's own "
             "call shrinks.",
             shown[["config_id", "variant", "mode", "call_ms", *stages, "compiles_demonstrated", "why"]]
             .reset_index(drop=True))]
