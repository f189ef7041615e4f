"""Claims judged on hand-made tables: a `contract.judging.Run` over the tables a test gives, the way the report
builds it from a run's CSVs."""

from __future__ import annotations

import pandas as pd

from jaxpitfalls.contract.interface import StudySpec
from jaxpitfalls.contract.judging import Run


def run_on(spec: StudySpec, base_id: str, **tables: pd.DataFrame) -> Run:
    """A Run on `tables`: each gains an empty `demonstration` column where it has none (a proper measurement),
    and `checks`, unless given, lists every configuration with `base_id` on the most sweep axes (the base)."""
    filled = {name: t if "demonstration" in t else t.assign(demonstration="") for name, t in tables.items()}
    if "checks" not in filled:
        ids = sorted({c for t in filled.values() if "config_id" in t for c in t.config_id} | {base_id})
        filled["checks"] = pd.DataFrame({"config_id": ids, "demonstration": "",
                                         "axes": ["base,other" if c == base_id else "other" for c in ids]})
    return Run(spec, filled)
