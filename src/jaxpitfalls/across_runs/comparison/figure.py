"""A comparison's figure: each row's change (current / baseline) with its 95% interval, coloured by its verdict,
the band of no change (1 +- threshold) shaded: the table's verdicts seen at once, a regression beside the noise."""

from __future__ import annotations

import math

import pandas as pd

from ...contract.figures import log_ticks, message, plt, sns, ticker
from ...formatting import short
from .compare_report import MOVED, VERDICTS

MOST_ROWS = 60  # a panel's rows; beyond, those that moved and the farthest from no change (the title says so)
_PALETTE = sns.color_palette("colorblind")  # inconclusive as the scorecard draws it (claims_figure)
COLORS = dict(zip(VERDICTS, (_PALETTE[3], _PALETTE[0], "0.45", _PALETTE[2]), strict=True))


def rows(table: pd.DataFrame, value: str, labels: list[str]) -> pd.DataFrame:
    """A table's rows measured on both sides as the figure takes them: label, value, low, high, verdict."""
    table = table[table.verdict.isin(VERDICTS)] if len(table) else table
    if not len(table):
        return pd.DataFrame(columns=["label", "value", "low", "high", "verdict"])
    varying = [c for c in labels if table[c].nunique() > 1] or labels[-1:]  # the same in every row: no label
    label = table[varying].astype(str).agg(" · ".join, axis=1)
    return pd.DataFrame({"label": label, "value": table[value], "low": table[f"{value}_ci_low"],
                         "high": table[f"{value}_ci_high"], "verdict": table.verdict})


def two_runs(table: pd.DataFrame, ratios: pd.DataFrame, threshold: float):
    """reports/compare.md's figure: the medians' rows, then each paired ratio's (what the default gate judges)."""
    pairs = ratios.assign(pair=ratios.variant + " / " + ratios.against) if len(ratios) else ratios
    return figure({"Median time per call": rows(table, "ratio", ["study", "config_id", "variant", "mode"]),
                   "Each variant's ratio to its floor": rows(pairs, "change", ["study", "config_id", "pair", "mode"])},
                  threshold, "current / baseline")


def lockstep(table: pd.DataFrame, threshold: float):
    """reports/compare_lockstep.md's figure: each row, every side against the first (named where several)."""
    several = len(table) and table.side.nunique() > 1
    side = "each side" if several or not len(table) else table.side.iat[0]
    first = table.against.iat[0] if len(table) else "the first"
    return figure({"Time per call, paired round by round": rows(table, "ratio", ["config_id", "variant", "mode",
                                                                                 *(["side"] if several else [])])},
                  threshold, f"{side} / {first}")


def _shown(panel: pd.DataFrame) -> pd.DataFrame:
    """At most MOST_ROWS rows, in the table's order: those that moved first, then the farthest from 1."""
    if len(panel) <= MOST_ROWS:
        return panel
    moved = panel.verdict.isin(MOVED)
    far = panel.value.map(lambda v: abs(math.log(v)) if v > 0 else math.inf)
    return panel.loc[sorted(pd.DataFrame({"moved": moved, "far": far}).sort_values(
        ["moved", "far"], ascending=False).index[:MOST_ROWS], key=list(panel.index).index)]


def _draw(ax, panel: pd.DataFrame, threshold: float) -> None:
    ax.axvspan(1 - threshold, 1 + threshold, color="0.9", zorder=0)
    ax.axvline(1, color="0.3", ls="--", lw=1)
    for y, r in enumerate(panel.itertuples()):
        color = COLORS.get(r.verdict, "black")
        if 0 < r.low <= r.value <= r.high < math.inf:
            ax.errorbar(r.value, y, xerr=[[r.value - r.low], [r.high - r.value]], fmt="o", capsize=3, color=color)
        else:  # one process: no interval
            ax.plot(r.value, y, "o", mfc="white", color=color)
    ax.set_yticks(range(len(panel)), [lab if 0 < r.low and r.high < math.inf else f"{lab} (no interval)"
                                      for lab, r in zip(panel.label, panel.itertuples(), strict=True)])
    ax.set_ylim(len(panel) - 0.5, -0.5)


def _log_x(axes, values: pd.Series, threshold: float) -> None:
    """One log x axis for all panels, in plain numbers, spanning the intervals drawn and the band: within a
    factor of 3 (most changes) a few even ticks, 1-2-5 steps beyond."""
    finite = values[(values > 0) & (values < math.inf)]
    low, high = min(finite.min(), 1 - threshold), max(finite.max(), 1 + threshold)
    even = [t for t in ticker.MaxNLocator(6, steps=[1, 2, 2.5, 5, 10]).tick_values(low, high) if t > 0]
    close = 1e-9  # a tick at the band's edge computed a float's last bit past it (0.9500000000000001)
    ticks = even if high / low < 3 and even[0] <= low * (1 + close) and even[-1] >= high * (1 - close) else log_ticks(
        low, high)  # ends labelled
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlim(ticks[0], ticks[-1])
        ax.set_xticks(ticks, [short(t) for t in ticks])
        ax.minorticks_off()


def figure(panels: dict[str, pd.DataFrame], threshold: float, xlabel: str):
    """One panel per table (title -> rows()), stacked, on one log axis; a legend of the verdicts drawn."""
    sns.set_theme(style="whitegrid", context="notebook")
    shown = {title: _shown(p) for title, p in panels.items() if len(p)}
    if not shown:
        return message("No row measured on both sides")
    heights = [max(len(p), 2) for p in shown.values()]
    longest = max(len(label) for p in shown.values() for label in p.label) + len(" (no interval)")
    fig, axes = plt.subplots(len(shown), 1, figsize=(max(8.0, 4.5 + 0.08 * longest),
                                                     1.2 * len(shown) + 0.3 * sum(heights)),
                             squeeze=False, gridspec_kw={"height_ratios": heights})
    axes = axes[:, 0]
    for ax, (title, panel) in zip(axes, shown.items(), strict=True):
        _draw(ax, panel, threshold)
        of = len(panels[title])
        ax.set_title(title if len(panel) == of else f"{title} ({len(panel)} of {of} rows: those that moved, then "
                     "the farthest from 1)", loc="left", fontsize="medium")
    _log_x(axes, pd.concat([p[c] for p in shown.values() for c in ("value", "low", "high")]), threshold)
    axes[-1].set_xlabel(f"{xlabel}, 95% interval, log scale\nshaded: within 1 ± {threshold:g}, no change")
    present = [v for v in VERDICTS if any((p.verdict == v).any() for p in shown.values())]
    handles = [plt.Line2D([], [], marker="o", ls="", color=COLORS[v], label=v) for v in present]
    fig.legend(handles=handles, loc="upper right", ncol=len(handles), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_figheight()))
    return fig
