"""The table helpers a study's claims and figures read its rows with; a study reads the tables only through these."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .naming import value_label

if TYPE_CHECKING:  # the Snakefile's parse reads TABLES: a driver environment without pandas parses the workflow
    import pandas as pd

# The CSV tables the aggregation writes per study (results/tables/{study}/{table}.csv).
TABLES = ("steps", "comparisons", "checks", "overhead", "environment")


def demonstrated(table: pd.DataFrame) -> pd.Series:
    """Whether each row's configuration demonstrates a pitfall on purpose."""
    return table["demonstration"].astype("string").fillna("") != ""


def variants_only(table: pd.DataFrame, variants: Iterable[str]) -> pd.DataFrame:
    """The rows of the study's own `variants`, without an anchor."""
    return table[table.variant.isin(list(variants))]


def measured(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of proper measurements, without the demonstrations."""
    return table[~demonstrated(table)]


def per_second(count, timed):
    """`count` per second of `timed`'s median (ms; a steps table or one row) as (rate, low, high)."""
    return tuple(count / (timed[ms] / 1e3) for ms in ("median_ms", "median_ci_high_ms", "median_ci_low_ms"))


def base_config_id(table: pd.DataFrame) -> str:
    """The base configuration: the one on every sweep axis."""

    n_axes = table["axes"].str.split(",").apply(len)
    return table.loc[n_axes.idxmax(), "config_id"]


def setting_labels(table: pd.DataFrame) -> dict[str, str]:
    """Each configuration's legend label: `base`, or what it changes from the base (`batch 8`)."""
    rows = table.drop_duplicates("config_id").set_index("config_id")
    base = rows.loc[base_config_id(rows.reset_index())]
    keys = base["axes"].split(",")  # the base lies on every axis: every key of a configuration
    return {config_id: ", ".join(f"{k} {value_label(r[k])}" for k in keys if r[k] != base[k]) or "base"
            for config_id, r in rows.iterrows()}
