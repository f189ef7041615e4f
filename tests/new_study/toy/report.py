"""The toy study's report: one figure, no tables of its own, one claim."""

from __future__ import annotations

import pandas as pd

from ...report.aggregate import base_config_id, measured
from ...report.claims import Judged, decide, interval
from ...report.plots import bars
from .spec import SPEC

FIGURES = {"median": "Median call time per variant and configuration."}


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    return []


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    return {"median": bars(measured(tables["steps"]), x="variant", y="median_ms", hue="config_id",
                           order=SPEC.variants, ylabel="median call (ms)", title="jax.jit vs eager")}


def claims(tables: dict[str, pd.DataFrame]) -> list[Judged]:
    comp = measured(tables["comparisons"])
    r = comp[(comp.config_id == base_config_id(comp)) & (comp.variant == "eager")].iloc[0]
    return [Judged(claim="jit_faster", measured=interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, "x"),
                   verdict=decide(r.ratio_ci_low, r.ratio_ci_high, 1, log=True).verdict())]
