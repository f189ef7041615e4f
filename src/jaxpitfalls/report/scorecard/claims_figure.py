"""The scorecard's figure: each effect's headline with its 95% interval beside the write-up's number, a panel per
unit (ratios on a log axis)."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib import ticker  # noqa: E402

from ...contract.figures import log_ticks  # noqa: E402
from ...contract.verdicts import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, UNSTABLE  # noqa: E402
from ...formatting import short  # noqa: E402
from .magnitude import unit_word  # noqa: E402
from .tally import EXPECTED, effects  # noqa: E402

COLUMNS = ["label", "unit", "value", "low", "high", "theirs_low", "theirs_high", "verdict", "supporting", "expected",
           "edges"]
VERDICT_COLORS = dict(zip((REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, UNSTABLE, NOT_TESTABLE),
                          sns.color_palette("colorblind", 5), strict=True))


COUNTS = ("compilations", "programs", "program", "false")  # counted things share one axis (false alarms too)


def _unit(unit: str) -> str:
    """A headline's panel: ratios together (`x`, `x slower`), counts together, any other unit its own."""
    first = unit_word(unit)
    if unit.startswith("x"):
        return "x"
    return "count" if first in COUNTS else first or "exponent"  # a bare number: an exponent, as the write-up's


def claim_points(claims: dict[str, list[dict[str, Any]]]) -> pd.DataFrame:
    """One row per effect with a headline: its interval, and the write-up's number where the size column uses
    it (`theirs_*`)."""
    rows = []
    for study, cs in claims.items():
        for group in effects(cs):
            lead = group[0]
            h = lead.get("headline")
            if h is None:
                continue
            theirs = (np.nan, np.nan)  # the write-up's number where the size column judges the headline by it
            if lead["numbers"] and _unit(lead["numbers"][0].unit) == _unit(h.unit) and not lead.get("supporting"):
                theirs = (lead["numbers"][0].low, lead["numbers"][0].high)
            named = lead["claim"] if lead.get("expected") else " = ".join(r["key"] for r in group)  # its sentence
            rows.append({"label": f"{study}: {named}", "unit": _unit(h.unit),
                         "value": h.value, "low": h.low, "high": h.high, "theirs_low": theirs[0],
                         "theirs_high": theirs[1], "verdict": lead["verdict"],
                         "supporting": bool(lead.get("supporting")), "expected": bool(lead.get("expected")),
                         "edges": tuple(lead.get("edges") or ())})
    return pd.DataFrame(rows, columns=COLUMNS)


def _panel(ax, points: pd.DataFrame, unit: str) -> None:
    """One unit's claims: the write-up's number (grey), ours by verdict (hollow: supporting), a line at no effect.
    On the ratios' log axis an interval reaching 0 or below stops at the axis's left end, an arrow saying so."""
    left = _ratio_axis(ax, points) if unit == "x" else -np.inf
    for y, p in enumerate(points.itertuples()):
        if not np.isnan(p.theirs_low):
            ax.plot([p.theirs_low, p.theirs_high], [y, y], color="0.6", lw=7, solid_capstyle="round", alpha=0.6,
                    marker="o", ms=7)
        for edge in p.edges:  # an expectation's edge: where its interval must lie wholly beyond or within
            ax.plot(edge, y, marker="|", ms=16, mew=2.5, color="0.35", ls="")
        color = VERDICT_COLORS.get(p.verdict, "black")
        low = max(p.low, left)
        ax.errorbar(p.value, y, xerr=[[max(p.value - low, 0)], [max(p.high - p.value, 0)]], fmt="o", capsize=3,
                    color=color, markerfacecolor="white" if p.supporting else color, clip_on=False)  # on a tick
        if low > p.low:
            ax.plot(left, y, marker="<", ms=9, color=color, ls="", clip_on=False)
    ax.axvline(1 if unit == "x" else 0, color="0.3", ls="--", lw=1)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: short(x)))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_yticks(range(len(points)), points.label)
    ax.set_ylim(len(points) - 0.5, -0.5)
    ax.set_xlabel("ratio (log scale)" if unit == "x" else unit)


def _ratio_axis(ax, points: pd.DataFrame) -> float:
    """A log axis at 1-2-5 steps around every positive end and 1, each labelled; its left end returned."""
    ends = np.concatenate([points[["low", "high", "theirs_low", "theirs_high"]].to_numpy(dtype=float).ravel(),
                           [e for edges in points.edges for e in edges]])
    ends = ends[np.isfinite(ends) & (ends > 0)]
    ax.set_xscale("log")
    ticks = log_ticks(min(ends.min(), 0.9), max(ends.max(), 1.1), most=11)
    ax.set_xlim(ticks[0], ticks[-1])
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    return ticks[0]


def claims_figure(points: pd.DataFrame):
    """Every effect's headline beside the write-up's number, one panel per unit, ratios first."""
    sns.set_theme(style="whitegrid", context="notebook")
    units = sorted(points.unit.unique(), key=lambda u: (u != "x", -int((points.unit == u).sum()), u))
    if not units:
        fig, ax = plt.subplots(figsize=(9.0, 1.5))
        ax.text(0.5, 0.5, "nothing was judged on a number in this run", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    heights = [1.0 + 0.32 * int((points.unit == u).sum()) for u in units]
    fig, axes = plt.subplots(len(units), 1, figsize=(10.0, 1.6 + sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, unit in zip(axes[:, 0], units, strict=True):
        _panel(ax, points[points.unit == unit], unit)
    yours = "expected" in points and bool(points.expected.all())  # benchmark files alone: expectations, no write-up
    theirs = bool(points.theirs_low.notna().any())  # drawn only where the size column judges by it
    handles = [plt.Line2D([], [], color="0.6", lw=7, alpha=0.6, label="write-up")] if theirs else []
    for v, c in VERDICT_COLORS.items():  # a verdict's key hollow where each of its points is
        if v in set(points.verdict):
            filled = not points.supporting[points.verdict == v].all()
            handles.append(plt.Line2D([], [], color=c, marker="o", ls="", markerfacecolor=c if filled else "white",
                                      label=EXPECTED.get(v, v).strip("*") if yours else f"ours: {v}"))
    if any(points.edges):
        handles.append(plt.Line2D([], [], color="0.35", marker="|", ms=12, mew=2.5, ls="", label="the sentence's edge"))
    if ((points.unit == "x") & (points.low <= 0)).any():
        handles.append(plt.Line2D([], [], color="0.35", marker="<", ms=9, ls="", label="interval reaches 0 or below"))
    if points.supporting.any():
        handles.append(plt.Line2D([], [], color="black", marker="o", markerfacecolor="white", ls="",
                                  label="ours supporting only (smaller structure, another device)"))
    # above the panels, not beside them: the ratio axis keeps the figure's width for its labelled ticks
    height = fig.get_figheight()
    exact = (points.low == points.high).any() and yours  # a memory plan's ratio: exact, drawn without one
    fig.suptitle(f"Each {'expectation' if yours else 'claim'}'s number here (95% interval"
                 + ("; memory plans: exact)" if exact else ")") + (" beside the write-up's" if theirs else ""),
                 y=1 - 0.1 / height, va="top")
    legend = fig.legend(handles=handles, loc="upper center", ncol=3, bbox_to_anchor=(0.5, 1 - LEGEND_IN / height))
    fig.canvas.draw()  # the panels start just under the legend as drawn, however many rows it took
    below = fig.transFigure.inverted().transform(legend.get_window_extent().p0)[1]
    fig.tight_layout(rect=(0, 0, 1, below))
    fig.subplots_adjust(top=below - 0.15 / height)  # tight_layout keeps the suptitle's room below the rect too
    return fig


LEGEND_IN = 0.45  # inches from the figure's top to the legend's, below the title
