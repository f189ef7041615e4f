"""Figure helpers the studies and the report share."""


from __future__ import annotations

import math
import textwrap
from itertools import pairwise

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib import ticker  # noqa: E402

from ..formatting import short  # noqa: E402

LABEL_CHARS = 70  # an axis label's line, at the figures' widths
Y_LABEL_CHARS = 34  # a y label's line, at a panel's height
TITLE_CHARS_PER_INCH = 8  # a figure title's characters (matplotlib's "large") an inch of width holds
LINE_POINTS = 3  # fewer points than this are drawn as points: two make no trend worth a line


def _scales(ax, log: str, xs: list[float], reference: float | None) -> None:
    """Log axes where `log` names them and the dashed reference line."""
    if "x" in log:
        ax.set_xscale("log")
        ax.set_xticks(xs, [short(t) for t in xs])
        ax.minorticks_off()
    if reference is not None:  # first: the line can widen the range _log_y reads
        ax.axhline(reference, color="grey", linestyle="--", linewidth=1)
    if "y" in log:
        _log_y(ax, reference)


def _log_y(ax, reference: float | None = None) -> None:
    """A log y axis in plain numbers at 1-2-5 steps, its ends widened to labelled ticks; within a factor of 3, a
    few plain ticks and the reference's among them."""
    ax.set_yscale("log")
    low, high = ax.get_ylim()
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda y, _: short(y)))
    plain = sorted({t for t in ticker.MaxNLocator(3, steps=[1, 2, 5, 10]).tick_values(low, high) if t > 0}
                   | ({reference} if reference else set()))
    if high / low < 3 and plain[0] <= low and plain[-1] >= high:  # a few plain ticks (0 has no place on a log axis)
        below, above = max(t for t in plain if t <= low), min(t for t in plain if t >= high)
        ticks = [t for t in plain if below <= t <= above]
    else:
        ticks = log_ticks(low, high)
    ax.set_ylim(ticks[0], ticks[-1])
    ax.yaxis.set_major_locator(ticker.FixedLocator(ticks))


def log_ticks(low: float, high: float, most: int = 9) -> list[float]:
    """Log-axis ticks at 1-2-5 steps spanning `low`..`high`; over `most` of them, whole decades instead."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = [m * 10.0 ** e for e in range(first - 1, last + 1) for m in (1, 2, 5)]
    below, above = max(t for t in steps if t <= low), min(t for t in steps if t >= high)
    ticks = [t for t in steps if below <= t <= above]
    return ticks if len(ticks) <= most else [10.0 ** e for e in range(first, last + 1)]


def spread_ticks(fig, *axes) -> None:
    """Widen the axes where neighbouring x tick labels come closer than an em."""
    fig.tight_layout()
    fig.canvas.draw()
    crowded = max(_crowding(fig, ax) for ax in axes)
    if crowded > 1:  # the axes widened, not the legend beside them
        axes_inches = sum(ax.get_position().width for ax in axes) * fig.get_figwidth()
        fig.set_figwidth(fig.get_figwidth() + axes_inches * (crowded * 1.15 - 1))
        fig.tight_layout()


def _crowding(fig, ax) -> float:
    """Closest x tick labels' half-widths and an em over their centres' distance."""
    labels = ax.get_xticklabels()
    boxes = [t.get_window_extent() for t in labels]
    gap = labels[0].get_fontsize() * fig.dpi / 72 if labels else 0  # an em, in pixels
    return max([(a.width + b.width + 2 * gap) / (b.x0 + b.x1 - a.x0 - a.x1) for a, b in pairwise(boxes)], default=0)


# A line's own marker: lines alike in value, or in colour (the colorblind palette's orange and vermillion), told apart
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


DODGE = 0.012  # of a panel's x span between lines (log axis: 4x it in log units): equal points stay apart


def _dodged(xs: pd.Series, panel: pd.Series, k: int, lines: int, log: bool) -> pd.Series:
    """Line `k` of `lines` moved aside (two variants of equal times drew one marker over the other), all of them
    together within a third of the panel's closest two x values (1000 and 1024 keep their order)."""
    if lines < 2 or not pd.api.types.is_numeric_dtype(panel):
        return xs
    where = np.log(np.unique(panel)) if log else np.unique(panel).astype(float)
    span = (where[-1] - where[0]) or 1.0
    gap = np.diff(where).min() if len(where) > 1 else span
    step = min(DODGE * (4.0 if log else span), gap / 3 / (lines - 1)) * (k - (lines - 1) / 2)
    return xs * np.exp(step) if log else xs + step


def facet_lines(
    data: pd.DataFrame,
    x: str,
    y: str,
    hue: str,
    col: str,
    low: str | None = None,
    high: str | None = None,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    sharex: bool = True,
    hue_order: tuple[str, ...] = (),
    wrap: int = 2,
    log: str = "",
    reference: float | None = None,
):
    """A panel per `col`, a line per `hue`, error bars from `low`, `high`; `log` names log axes ("xy"),
    `reference` draws a dashed line."""
    sns.set_theme(style="whitegrid", context="notebook")
    panels = list(dict.fromkeys(data[col]))
    order = list(hue_order) or sorted(data[hue].unique())
    palette = dict(zip(order, sns.color_palette("colorblind", len(order)), strict=False))
    markers = {h: MARKERS[i % len(MARKERS)] for i, h in enumerate(order)}
    hues = [h for h in order if h in set(data[hue])]
    ncols = min(wrap, len(panels))
    nrows = -(-len(panels) // ncols)
    # a log x axis gets ticks at each panel's own values (_scales): shared, the last panel's would replace them all
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.6 * nrows), sharex=sharex and "x" not in log,
                             squeeze=False)
    flat_axes = axes.ravel()
    for ax in flat_axes[len(panels):]:
        ax.set_visible(False)
    for i, (ax, panel) in enumerate(zip(flat_axes, panels, strict=False)):
        part = data[data[col] == panel]
        for k, h in enumerate(hues):
            line = part[part[hue] == h].sort_values(x)
            if line.empty:
                continue
            err = None
            if low and high:
                err = [line[y] - line[low], line[high] - line[y]]
            ax.errorbar(_dodged(line[x], part[x], k, len(hues), "x" in log), line[y], yerr=err,
                        marker=markers[h], capsize=3, label=h, color=palette[h],
                        ls="-" if len(line) >= LINE_POINTS else "none")
        _scales(ax, log, sorted(set(part[x])), reference)
        ax.tick_params(labelbottom=True)  # every panel says where its points lie, shared axis or not
        if len(panels) > 1 or not title:  # one panel under a figure's title: "variant = unbatched" said nothing
            ax.set_title(f"{col} = {panel}")
        ax.set_xlabel(xlabel or (panel if x == "value" else x))
        ax.set_ylabel(_y_label(ylabel or y, "y" in log, reference) if i % ncols == 0 else "")
    _legend_beside(fig, flat_axes[:len(panels)], hue)
    if title:  # in lines of the figure's width: a single panel's long title ran past both edges
        fig.suptitle("\n".join(textwrap.wrap(title, int(TITLE_CHARS_PER_INCH * fig.get_figwidth()))))
        lay_out_beside_legend(fig)
    return fig


def _y_label(label: str, log: bool, reference: float | None = None) -> str:
    """A y label that says a log axis is one (its ticks are unevenly spaced) and what a dashed line marks."""
    said = [*(["log scale"] if log else []), *([f"dashed: {short(reference)}"] if reference is not None else [])]
    whole = ", ".join([label, *(part.replace(" ", "\xa0") for part in said)])  # each part kept on one line
    return "\n".join(textwrap.wrap(whole, Y_LABEL_CHARS)).replace("\xa0", " ")  # a panel's height, never cut


def _legend_beside(fig, axes, title: str) -> None:
    """One legend for every panel at the right edge; the figure widens so it never hides data."""
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    fig.legend(list(entries.values()), list(entries), title=title, fontsize="small", loc="center right")
    width = _legend_width(fig)
    fig.set_figwidth(fig.get_figwidth() + width)
    _lay_out_left_of(fig, width)


def _legend_width(fig) -> float:
    """The legend's width in inches with a margin (0 where none)."""
    fig.canvas.draw()
    return fig.legends[0].get_window_extent().width / fig.dpi + 0.15 if fig.legends else 0.0


def _lay_out_left_of(fig, width: float) -> None:
    fig.tight_layout(rect=(0, 0, 1 - width / fig.get_figwidth(), 1))


def lay_out_beside_legend(fig) -> None:
    """Lay the panels out beside the legend after changing them (a plain tight_layout puts them under it)."""
    _lay_out_left_of(fig, _legend_width(fig))


def bars(data: pd.DataFrame, x: str, y: str, hue: str, order: tuple[str, ...] = (), hue_order: tuple[str, ...] = (),
         xlabel: str = "", ylabel: str = "", title: str = "", log: bool = False, low: str | None = None,
         high: str | None = None):
    """Grouped bars (a group per `x`, a bar per `hue`) with error bars from `low`, `high`; on a `log` axis points
    instead (a bar's length means nothing there)."""
    sns.set_theme(style="whitegrid", context="notebook")
    groups = [o for o in order if o in set(data[x])] or sorted(data[x].unique())
    hues = [h for h in hue_order if h in set(data[hue])] or list(dict.fromkeys(data[hue]))
    colors = dict(zip(hues, sns.color_palette("colorblind", len(hues)), strict=True))
    width, inches = 0.8 / len(hues), max(6.0, 0.8 * len(groups) * max(len(hues), 2) + 1.5)
    fig, ax = plt.subplots(figsize=(inches, 4.2))
    for j, h in enumerate(hues):
        part = data[data[hue] == h].set_index(x).reindex(groups)
        at = [i - 0.4 + width * (j + 0.5) for i in range(len(groups))]
        err = None if not (low and high) else [part[y] - part[low], part[high] - part[y]]
        if log:
            ax.errorbar(at, part[y], yerr=err, fmt="o", markersize=7, color=colors[h], label=str(h), capsize=3,
                        elinewidth=1, ecolor="0.2")
        else:
            ax.bar(at, part[y], width=width * 0.95, color=colors[h], label=str(h), yerr=err, capsize=3,
                   error_kw={"elinewidth": 1, "ecolor": "0.2"})
    ax.set_xticks(range(len(groups)), [str(g) for g in groups])
    if log:
        _log_y(ax)
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(_y_label(ylabel or y, log))
    if len(hues) > 1:
        ax.legend(title=hue, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    else:  # a legend of one entry: said in the axis label instead
        ax.set_xlabel(f"{xlabel or x} ({hue}: {hues[0]})")
    if title:
        ax.set_title(title)
    spread_ticks(fig, ax)
    return fig


def interval_dots(rows: pd.DataFrame, band: float | None = None, xlabel: str = "", title: str = ""):
    """One dot per estimate (`rows`: label, value, low, high) with its 95% interval, a dashed line at 0 and
    the band +-`band` shaded."""
    sns.set_theme(style="whitegrid", context="notebook")
    fig, ax = plt.subplots(figsize=(8.0, 1.4 + 0.5 * len(rows)))
    if band is not None:  # said in the axis label: a legend of one entry is a label
        ax.axvspan(-band, band, color="0.85")
        xlabel += f" (shaded: +-{short(band)})"
    ax.axvline(0, color="0.3", ls="--", lw=1)
    ax.errorbar(rows.value, range(len(rows)), xerr=[rows.value - rows.low, rows.high - rows.value], fmt="o",
                capsize=4, color=sns.color_palette("colorblind")[0])
    ax.set_yticks(range(len(rows)), rows.label)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("\n".join(textwrap.wrap(xlabel, LABEL_CHARS)))  # a long one in lines, never cut at the edge
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def message(text: str):
    """A figure that says only why there is nothing to draw (no row, no release measured)."""
    fig, ax = plt.subplots(figsize=(6, 1.5))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center")
    return fig


def save(fig, path: str) -> None:
    """PNG at the HTML report's resolution."""

    from ..results import write_atomically

    write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=130, format="png"))
    plt.close(fig)
