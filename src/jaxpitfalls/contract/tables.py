"""The table helpers a study's claims and figures read its rows with: which rows are proper measurements, the
study's own variants, its base configuration, each configuration's legend label, a rate from a median time.
The report's aggregation writes the tables (report/tables/aggregate.py); a study reads them only through these."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .naming import value_label

if TYPE_CHECKING:  # the Snakefile's parse reads TABLES: a driver environment without pandas parses the workflow
    import pandas as pd

# The CSV tables the aggregation writes per study (results/tables/{study}/{table}.csv).
TABLES = ("steps", "comparisons", "checks", "overhead", "environment")


def demonstrated(table: pd.DataFrame) -> pd.Series:
    """Whether each row is of a configuration that demonstrates a pitfall on purpose (its `demonstration` names
    it; a column read back from CSV with none is all NaN)."""
    return table["demonstration"].astype("string").fillna("") != ""


def variants_only(table: pd.DataFrame, variants: Iterable[str]) -> pd.DataFrame:
    """The rows of the study's own `variants`, without a configuration's anchor (another model timed beside
    them in the same rounds, recorded under a name of its own)."""
    return table[table.variant.isin(list(variants))]


def measured(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of proper measurements: without the configurations that demonstrate a pitfall on purpose."""
    return table[~demonstrated(table)]


def per_second(count, timed):
    """`count` (tokens, sequences) per second of `timed`'s median time (ms), with the interval its median's
    95% interval gives: (rate, low, high), the slower end the lower rate. `timed` is a steps table or one row."""
    return tuple(count / (timed[ms] / 1e3) for ms in ("median_ms", "median_ci_high_ms", "median_ci_low_ms"))


def base_config_id(table: pd.DataFrame) -> str:
    """The base configuration: the one that lies on every sweep axis."""
    n_axes = table["axes"].str.split(",").apply(len)
    return table.loc[n_axes.idxmax(), "config_id"]


def setting_labels(table: pd.DataFrame) -> dict[str, str]:
    """Each configuration as a legend names it: `base`, or the values it changes from the base (`batch 8`),
    where a whole configuration id would be wider than the figure."""
    rows = table.drop_duplicates("config_id").set_index("config_id")
    base = rows.loc[base_config_id(rows.reset_index())]
    keys = base["axes"].split(",")  # the base lies on every axis: every key of a configuration
    return {config_id: ", ".join(f"{k} {value_label(r[k])}" for k in keys if r[k] != base[k]) or "base"
            for config_id, r in rows.iterrows()}
