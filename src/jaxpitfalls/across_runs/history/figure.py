"""The history's figure: each series' release levels with their intervals, a panel per variant and mode, the steps
found marked between releases and the series `history.primary` declared named."""

from __future__ import annotations

import pandas as pd


def _panel(table: pd.DataFrame) -> pd.Series:
    return table.variant + " / " + table.baseline + ", " + table["mode"]


def figure(levels: pd.DataFrame, steps: pd.DataFrame, releases: list[str], package: str):
    """Each series' levels with 95% intervals, a panel per variant and mode, a red dashed line at each step."""
    from ...contract.figures import facet_lines, lay_out_beside_legend, message

    if not len(levels):  # no release measured: the report says why
        return message(f"No {package} release was measured")
    shown = [r for r in releases if r in set(levels.release)]
    declared = set(_panel(steps[steps.declared]))
    panels = list(dict.fromkeys(_panel(levels)))  # facet_lines draws them in this order
    data = levels.assign(position=levels.release.map(shown.index),
                         series=_panel(levels).map(lambda p: p + " (declared)" if p in declared else p))
    fig = facet_lines(data, x="position", y="ratio", low="ratio_ci_low", high="ratio_ci_high", hue="config_id",
                      col="series", wrap=2, reference=1.0, xlabel=f"{package} release", ylabel="paired ratio",
                      title="Each release's paired ratio (95% interval); red, between releases: a step found")
    for ax, panel in zip(fig.axes, panels, strict=False):
        ax.set_xticks(range(len(shown)), shown, rotation=45, ha="right")
        found = steps[(steps.step > 0) & (_panel(steps) == panel)]
        for r in found.itertuples():
            ax.axvline(shown.index(r.after) - 0.5, color="crimson", linestyle="--", linewidth=1)
    lay_out_beside_legend(fig)
    return fig
