"""Figure helpers the studies share: lines per variant with their 95% intervals, faceted."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402


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
    logx: bool = False,
):
    """One panel per `col` value, one line per `hue` value, error bars from precomputed interval columns."""
    sns.set_theme(style="whitegrid", context="notebook")
    panels = list(dict.fromkeys(data[col]))
    hues = sorted(data[hue].unique())
    palette = dict(zip(hues, sns.color_palette("colorblind", len(hues))))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.8), sharex=sharex,
                             squeeze=False)
    for ax, panel in zip(axes[0], panels):
        part = data[data[col] == panel]
        for h in hues:
            line = part[part[hue] == h].sort_values(x)
            if line.empty:
                continue
            err = None
            if low and high:
                err = [line[y] - line[low], line[high] - line[y]]
            ax.errorbar(line[x], line[y], yerr=err, marker="o", capsize=3, label=h, color=palette[h])
        ax.set_title(f"{col} = {panel}" if col else str(panel))
        ax.set_xlabel(xlabel or x)
        if logx:
            ax.set_xscale("log", base=2)
    axes[0][0].set_ylabel(ylabel or y)
    axes[0][-1].legend(title=hue, fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def save(fig, path: str) -> None:
    """PNG at a resolution that reads well in the HTML report."""
    from ..results import write_atomically

    write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=130, format="png"))
    plt.close(fig)
