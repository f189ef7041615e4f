"""Ratios wider than the `measure.target_precision` their job asked for: the job added processes until its most and
stopped short, which the table's `precision` column shows row by row but no sentence said."""

from __future__ import annotations

import json

import pandas as pd

from ...harness.stats import DIFFERENCE, relative_half_width


def _targets(checks: pd.DataFrame) -> dict[str, tuple[float, float, int]]:
    """Per configuration its recorded target, the share of ratios to reach it, and its most processes."""
    found = {}
    for config_id, text in checks.drop_duplicates("config_id").set_index("config_id")["settings"].items():
        settings = json.loads(text) if isinstance(text, str) and text.startswith("{") else {}
        if settings.get("target_precision"):
            found[config_id] = (settings["target_precision"], settings.get("target_share", 1.0),
                                settings.get("max_processes", 0))
    return found


def shortfall_lines(comp: pd.DataFrame, checks: pd.DataFrame) -> list[str]:
    """A line under the ratios where a configuration's share within its target fell short of the share asked."""
    targets = _targets(checks)
    rows = comp[comp.config_id.isin(targets) & ~comp.variant.str.contains(DIFFERENCE, regex=False)]
    if rows.empty:
        return []
    within = relative_half_width(rows) <= rows.config_id.map(lambda c: targets[c][0])
    short = [c for c, inside in within.groupby(rows.config_id) if inside.mean() < targets[c][1]]
    if not short:
        return []
    target, _, most = targets[short[0]]
    wide = int((~within[rows.config_id.isin(short)]).sum())
    return [f"**{wide} ratios of {len(short)} configuration(s) ({', '.join(short)}) are wider than "
            f"`measure.target_precision` (±{target:.0%}) after their most processes ({most or 'max_processes'})**: "
            "read their intervals as they are; more processes (`max_processes`) or rounds narrow them.", ""]
