"""The figure helpers draw what a reader needs to read a figure: tick labels on every panel, labels that do not
overlap, intervals wherever the table has them, a legend that leaves the plot its width."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.container import BarContainer, ErrorbarContainer

from jaxpitfalls.plan import TABLES
from jaxpitfalls.report.plots import bars, facet_lines


def _labels(ax) -> list[str]:
    ax.figure.canvas.draw()
    return [t.get_text() for t in ax.get_xticklabels() if t.get_text()]


def test_every_panel_of_a_log_axis_labels_its_own_points():
    """tree_at's time vs transforms: panels at 24-96 transforms and one at 24 only; shared, the last panel's
    ticks replaced every other's, which showed none."""
    data = pd.DataFrame([{"mode": m, "transforms": t, "ms": t * 0.5, "variant": v}
                         for m, ts in (("direct", (24, 48, 96)), ("steady", (24, 48, 96)), ("step_by_step", (24,)))
                         for t in ts for v in ("unbatched", "batched")])
    fig = facet_lines(data, x="transforms", y="ms", hue="variant", col="mode", log="xy", wrap=2)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [_labels(ax) for ax in panels] == [["24", "48", "96"], ["24", "48", "96"], ["24"]]


def test_grouped_bars_keep_their_labels_apart_and_draw_intervals():
    variants = ("eager", "jit", "jit_padded", "jit_padded_stacked", "jit_padded_async", "pipelined", "scanned")
    data = pd.DataFrame([{"variant": v, "configuration": c, "rate": 10.0 * (i + 1), "low": 9.0 * (i + 1),
                          "high": 11.0 * (i + 1)} for i, v in enumerate(variants) for c in ("base", "batch 8")])
    fig = bars(data, x="variant", y="rate", hue="configuration", order=variants, low="low", high="high", log=True)
    ax = fig.axes[0]
    fig.canvas.draw()
    boxes = [t.get_window_extent() for t in ax.get_xticklabels()]
    assert _labels(ax) == list(variants)
    em = ax.get_xticklabels()[0].get_fontsize() * fig.dpi / 72
    assert min(b.x0 - a.x1 for a, b in zip(boxes, boxes[1:], strict=False)) >= em * 0.9  # apart, not just not touching
    points = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(points) == 2 and all(c.has_yerr for c in points)  # a point set per hue, intervals on
    assert not [c for c in ax.containers if isinstance(c, BarContainer)]  # on a log axis a bar's length means nothing
    legend = ax.get_legend().get_window_extent()
    assert legend.width < ax.get_window_extent().width / 2  # beside the plot, not wider than it


def test_grouped_bars_on_a_linear_axis_are_bars_from_zero_with_intervals():
    data = pd.DataFrame([{"variant": v, "warmup": w, "ms": 5.0, "low": 4.0, "high": 6.0}
                         for v in ("a", "b") for w in ("proper", "short")])
    ax = bars(data, x="variant", y="ms", hue="warmup", low="low", high="high").axes[0]
    bar_sets = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bar_sets) == 2 and all(c.errorbar is not None for c in bar_sets)
    assert ax.get_ylim()[0] == 0


def test_generation_draws_the_warmup_pitfall_only_where_a_run_has_the_demonstration():
    """A run without a warmup_fraction below 1 (presets/gpu-lease.yaml) has no pitfall to draw: the speed figure
    alone, where the bar chart divided by its zero groups."""
    from jaxpitfalls.report.aggregate import demonstrated, read_tables
    from jaxpitfalls.studies.generation.report import figures

    published = Path(__file__).parents[1] / "docs/reference/2026-11-26"
    tables = read_tables({t: str(published / f"tables/generation/{t}.csv") for t in TABLES if t != "environment"}
                         | {"environment": str(published / "environment/generation.csv")})
    assert set(figures(tables)) == {"tokens_per_s", "warmup_pitfall"}
    without = tables | {"steps": tables["steps"][~demonstrated(tables["steps"])]}
    assert set(figures(without)) == {"tokens_per_s"}
