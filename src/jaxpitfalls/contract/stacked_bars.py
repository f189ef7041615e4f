"""Stacked bars: a whole's parts per row, each bar's total written above it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..formatting import short

APART = 5.0  # a bar under 1/APART of its panel's tallest gets a panel of its own scale
PANELS = f"A bar over {APART:g} times another's is drawn in a panel of its own scale."  # for a figure's caption


def stacked_bars(table: pd.DataFrame, ylabel: str = "", title: str = "", total: pd.DataFrame | None = None):
    """A bar per row of `table` (columns: the parts), `total` (value, low, high) as error bars; bars of unlike
    size in panels of their own scale (one axis hid a short bar's parts)."""
    from .figures import plt, sns, spread_ticks  # matplotlib only where a figure is drawn: captions read PANELS

    sns.set_theme(style="whitegrid", context="notebook")
    tops = table.sum(axis=1).to_numpy(dtype=float)
    if total is not None:
        tops = np.fmax(tops, total.iloc[:, 2].to_numpy(dtype=float))
    groups = scale_groups(tops)
    fig, axes = plt.subplots(1, len(groups), figsize=(8.5, 4.0), squeeze=False,
                             width_ratios=[len(g) + 0.5 for g in groups])
    for ax, rows in zip(axes[0], groups, strict=True):
        table.iloc[rows].plot.bar(stacked=True, ax=ax, color=sns.color_palette("colorblind", len(table.columns)),
                                  rot=0, legend=False)
        if total is not None:
            value, low, high = (total.iloc[rows, k].to_numpy(dtype=float) for k in range(3))
            ax.errorbar(range(len(rows)), value, yerr=[value - low, high - value], fmt="_", color="black",
                        capsize=4, markersize=14, label="median (95% interval)")
        for i, row in enumerate(rows):  # a bar too short to see is read
            ax.annotate(short(table.iloc[row].sum()), (i, tops[row]), xytext=(0, 3), textcoords="offset points",
                        ha="center", fontsize="small")
        ax.set_xlabel("")
    axes[0][0].set_ylabel(ylabel)
    axes[0][-1].legend(*axes[0][0].get_legend_handles_labels(), loc="upper left", bbox_to_anchor=(1, 1))
    if title:
        fig.suptitle(title)
    spread_ticks(fig, *axes[0])
    return fig


def scale_groups(tops: np.ndarray, factor: float = APART) -> list[list[int]]:
    """Bars' positions grouped, none under 1/`factor` of its group's tallest (a zero or NaN joins the shortest),
    the groups in their first bar's order: the floor's panel first."""
    groups: list[list[int]] = []
    for i in np.argsort(-np.nan_to_num(tops), kind="stable"):
        if not groups or 0 < tops[i] * factor < tops[groups[-1][0]]:
            groups.append([])
        groups[-1].append(int(i))
    return sorted(sorted(g) for g in groups)
