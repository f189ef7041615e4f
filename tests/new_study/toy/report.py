"""The toy study's report: one figure, no tables of its own (its claim is judged in claims.py)."""

from __future__ import annotations

import pandas as pd

from jaxpitfalls.contract.figures import bars
from jaxpitfalls.contract.tables import measured

from .spec import SPEC

FINDINGS = ()  # its one claim has no advice: the report opens on decided claims
FIGURES = {"median": "Median call time per variant and configuration."}


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    return []


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    return {"median": bars(measured(tables["steps"]), x="variant", y="median_ms", hue="config_id",
                           order=SPEC.variants, ylabel="median call (ms)", title="jax.jit vs eager")}

