"""Figure helpers the studies and the report share: lines per variant with their 95% intervals, faceted; bars;
the claims beside the write-ups' numbers."""

from __future__ import annotations

from itertools import pairwise

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib import ticker  # noqa: E402


def _scales(ax, log: str, xs: list[float], reference: float | None) -> None:
    """Log axes where `log` names them (x ticks at the data's values) and the dashed reference line."""
    if "x" in log:
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{t:g}" for t in xs])
        ax.minorticks_off()
    if reference is not None:  # first: the line can widen the range _log_y reads
        ax.axhline(reference, color="grey", linestyle="--", linewidth=1)
    if "y" in log:
        _log_y(ax)


def _log_y(ax) -> None:
    """A log y axis labelled in plain numbers (`40`, not matplotlib's `4x10^1`); within a decade, a few plain
    ticks (matplotlib would label every minor tick)."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.LogFormatter())
    ax.yaxis.set_minor_formatter(ticker.LogFormatter(labelOnlyBase=False))  # the minor ticks matplotlib labels
    low, high = ax.get_ylim()
    if high / low < 10:
        ax.yaxis.set_major_locator(ticker.MaxNLocator(4))
        ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_locator(ticker.NullLocator())


def _spread_ticks(fig, ax) -> None:
    """Widen the figure where two neighbouring x tick labels come closer than an em as drawn (two long
    neighbours can touch where the average label fits); labels stay level, slanted ones still touch when long."""
    fig.tight_layout()
    fig.canvas.draw()
    labels = ax.get_xticklabels()
    boxes = [t.get_window_extent() for t in labels]
    gap = labels[0].get_fontsize() * fig.dpi / 72 if labels else 0  # an em, in pixels
    crowded = max([(a.width + b.width + 2 * gap) / (b.x0 + b.x1 - a.x0 - a.x1) for a, b in pairwise(boxes)],
                  default=0)  # each pair's half-widths and the gap over the distance between their centres
    if crowded > 1:
        fig.set_figwidth(fig.get_figwidth() * crowded * 1.15)
        fig.tight_layout()


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
    """One panel per `col` value, one line per `hue` value, error bars from precomputed interval columns.

    `hue_order` fixes each hue's colour, so a variant has the same colour in every figure of a study;
    `log` names the axes drawn on log scales ("xy": power laws become straight lines; ticks at the data's
    x values); `reference` draws a dashed horizontal line (e.g. 1 for ratios).
    """
    sns.set_theme(style="whitegrid", context="notebook")
    panels = list(dict.fromkeys(data[col]))
    order = list(hue_order) or sorted(data[hue].unique())
    palette = dict(zip(order, sns.color_palette("colorblind", len(order)), strict=False))
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
        for h in hues:
            line = part[part[hue] == h].sort_values(x)
            if line.empty:
                continue
            err = None
            if low and high:
                err = [line[y] - line[low], line[high] - line[y]]
            ax.errorbar(line[x], line[y], yerr=err, marker="o", capsize=3, label=h, color=palette[h])
        _scales(ax, log, sorted(set(part[x])), reference)
        ax.tick_params(labelbottom=True)  # every panel says where its points lie, shared axis or not
        ax.set_title(f"{col} = {panel}")
        ax.set_xlabel(xlabel or (panel if x == "value" else x))
        ax.set_ylabel((ylabel or y) if i % ncols == 0 else "")
    if title:
        fig.suptitle(title)
    _legend_beside(fig, flat_axes[:len(panels)], hue)
    return fig


def _legend_beside(fig, axes, title: str) -> None:
    """One legend for every panel, at the middle of the figure's right edge (below any title): the figure widens
    by the legend's width, so it never lies over a panel's data (in the first panel it hid lines where they ran)."""
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    legend = fig.legend(list(entries.values()), list(entries), title=title, fontsize="small", loc="center right")
    fig.canvas.draw()
    width = legend.get_window_extent().width / fig.dpi + 0.15  # inches, and a margin
    fig.set_figwidth(fig.get_figwidth() + width)
    fig.tight_layout(rect=(0, 0, 1 - width / fig.get_figwidth(), 1))


def bars(data: pd.DataFrame, x: str, y: str, hue: str, order: tuple[str, ...] = (), hue_order: tuple[str, ...] = (),
         xlabel: str = "", ylabel: str = "", title: str = "", log: bool = False, low: str | None = None,
         high: str | None = None):
    """Grouped bars (one group per `x` value, one bar per `hue` value), e.g. a measurement and its pitfall, with
    error bars from interval columns (`low`, `high`) where given. On a `log` axis a bar's length means nothing
    (it starts wherever the axis does), so each value is a point with its interval instead. The figure widens
    with its groups, and again where two neighbouring tick labels would come closer than an em as drawn; keep
    `hue` labels short (aggregate.setting_labels), the legend sits beside the plot."""
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
    ax.set_ylabel(ylabel or y)
    if len(hues) > 1:
        ax.legend(title=hue, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    else:  # a legend of one entry: said in the axis label instead
        ax.set_xlabel(f"{xlabel or x} ({hue}: {hues[0]})")
    if title:
        ax.set_title(title)
    _spread_ticks(fig, ax)
    return fig


def stacked_bars(table: pd.DataFrame, ylabel: str = "", title: str = ""):
    """One stacked bar per row of `table` (index: the bars, columns: the parts); the figure widens where
    neighbouring labels would crowd."""
    sns.set_theme(style="whitegrid", context="notebook")
    fig, ax = plt.subplots(figsize=(8.5, 4.0))
    table.plot.bar(stacked=True, ax=ax, color=sns.color_palette("colorblind", len(table.columns)), rot=0)
    ax.set_ylabel(ylabel)
    ax.set_xlabel("")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
    if title:
        ax.set_title(title)
    _spread_ticks(fig, ax)
    return fig


def save(fig, path: str) -> None:
    """PNG at a resolution that reads well in the HTML report."""
    from ..results import write_atomically

    write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=130, format="png"))
    plt.close(fig)
