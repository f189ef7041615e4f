"""The figure helpers draw what a reader needs to read a figure: tick labels on every panel, labels that do not
overlap, intervals wherever the table has them, a legend that leaves the plot its width."""

from __future__ import annotations

import importlib
import re
from itertools import pairwise
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.container import BarContainer, ErrorbarContainer

from jaxpitfalls.contract.figures import _y_label, bars, facet_lines
from jaxpitfalls.contract.stacked_bars import scale_groups, stacked_bars
from jaxpitfalls.contract.tables import TABLES
from jaxpitfalls.report.tables.aggregate import read_tables
from jaxpitfalls.studies.extraction.report import SPLIT

SEEDS = Path(__file__).parent / "fixtures/seeds-cpu"  # the write-ups' structures, on 2 cores (its README)


def _labels(ax) -> list[str]:
    ax.figure.canvas.draw()
    return [t.get_text() for t in ax.get_xticklabels() if t.get_text()]


def _closest_labels(ax) -> float:
    """The smallest gap between neighbouring x tick labels as drawn, in ems."""
    ax.figure.canvas.draw()
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    boxes = [t.get_window_extent() for t in labels]
    em = labels[0].get_fontsize() * ax.figure.dpi / 72
    return min((b.x0 - a.x1 for a, b in pairwise(boxes)), default=em) / em


def _y_labels(ax) -> list[str]:
    """The y tick labels a reader sees (matplotlib also labels ticks outside the drawn range)."""
    ax.figure.canvas.draw()
    low, high = ax.get_ylim()
    return [t.get_text() for t in [*ax.get_yticklabels(), *ax.get_yticklabels(minor=True)]
            if t.get_text() and low <= t.get_position()[1] <= high]


def test_every_panel_of_a_log_axis_labels_its_own_points():
    """tree_at's time vs transforms: panels at 24-96 transforms and one at 24 only; shared, the last panel's
    ticks replaced every other's, which showed none."""
    data = pd.DataFrame([{"mode": m, "transforms": t, "ms": t * 0.5, "variant": v}
                         for m, ts in (("direct", (24, 48, 96)), ("steady", (24, 48, 96)), ("step_by_step", (24,)))
                         for t in ts for v in ("unbatched", "batched")])
    fig = facet_lines(data, x="transforms", y="ms", hue="variant", col="mode", log="xy", wrap=2)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [_labels(ax) for ax in panels] == [["24", "48", "96"], ["24", "48", "96"], ["24"]]


@pytest.mark.parametrize("log", ["xy", "y"])
def test_lines_of_equal_points_are_drawn_apart(log):
    """A user's walk: two variants of equal times drew one marker over the other, one variant lost."""
    data = pd.DataFrame([{"n": n, "ms": n * 0.5, "variant": v, "mode": "blocked"} for n in (256, 2048)
                         for v in ("index", "take")])
    ax = facet_lines(data, x="n", y="ms", hue="variant", col="mode", log=log).axes[0]
    drawn = [line.get_xdata() for line in ax.lines if len(line.get_xdata()) == 2]
    assert len(drawn) == 2 and all(a != b for a, b in zip(*drawn, strict=True))
    assert all(abs(a / n - 1) < 0.06 for xs in drawn for a, n in zip(xs, (256, 2048), strict=True))


def test_many_lines_dodged_keep_close_x_values_in_order():
    """Eight variants at 1000 and 1024: every line's points stay nearer their own x than the other."""
    data = pd.DataFrame([{"n": n, "ms": 1.0, "variant": f"v{i}", "mode": "m"} for n in (1000, 1024) for i in range(8)])
    ax = facet_lines(data, x="n", y="ms", hue="variant", col="mode", log="xy").axes[0]
    xs = [line.get_xdata() for line in ax.lines if len(line.get_xdata()) == 2]
    assert len(xs) == 8 and max(a for a, _ in xs) < min(b for _, b in xs)


def test_grouped_bars_keep_their_labels_apart_and_draw_intervals():
    variants = ("eager", "jit", "jit_padded", "jit_padded_stacked", "jit_padded_async", "pipelined", "scanned")
    data = pd.DataFrame([{"variant": v, "configuration": c, "rate": 10.0 * (i + 1), "low": 9.0 * (i + 1),
                          "high": 11.0 * (i + 1)} for i, v in enumerate(variants) for c in ("base", "batch 8")])
    fig = bars(data, x="variant", y="rate", hue="configuration", order=variants, low="low", high="high", log=True)
    ax = fig.axes[0]
    assert _labels(ax) == list(variants)
    assert _closest_labels(ax) >= 0.9  # apart by an em, not just not touching
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
    from jaxpitfalls.contract.tables import demonstrated
    from jaxpitfalls.report.tables.aggregate import read_tables
    from jaxpitfalls.studies.generation.report import figures

    tables = read_tables({t: str(SEEDS / f"tables/generation/{t}.csv") for t in TABLES if t != "environment"}
                         | {"environment": str(SEEDS / "environment/generation.csv")})
    assert set(figures(tables)) == {"tokens_per_s", "warmup_pitfall"}
    without = tables | {"steps": tables["steps"][~demonstrated(tables["steps"])]}
    assert set(figures(without)) == {"tokens_per_s"}


def test_stacked_bars_keep_their_labels_apart():
    """extraction's time split: jit_padded, jit_padded_stacked and jit_padded_async ran into each other."""
    variants = ["eager", "jit", "jit_padded", "jit_padded_stacked", "jit_padded_async", "pipelined", "scanned"]
    table = pd.DataFrame({"forward": 100.0, "transfer": 5.0, "storage": 1.0}, index=variants)
    assert _closest_labels(stacked_bars(table).axes[0]) >= 0.9


def test_stacked_bars_widen_their_axes_not_their_legend():
    """extraction's time split beside its long legend was drawn 24 inches wide, its labels nine ems apart."""
    variants = ["eager", "jit", "jit_padded", "jit_padded_stacked", "jit_padded_async", "pipelined", "scanned"]
    table = pd.DataFrame({part: 10.0 for pair in SPLIT.values() for part in pair}, index=variants)
    assert 0.9 <= _closest_labels(stacked_bars(table).axes[0]) <= 4


def test_a_log_axis_within_a_decade_shows_a_few_plain_ticks():
    """tree_at's step-by-step panel (305-312 ms) labelled eight minor ticks as `3.05x10^2`."""
    data = pd.DataFrame([{"mode": "step_by_step", "transforms": 24, "ms": ms, "variant": v}
                         for v, ms in (("unbatched", 312.4), ("batched", 304.6))])
    ax = facet_lines(data, x="transforms", y="ms", hue="variant", col="mode", log="xy").axes[0]
    labels = _y_labels(ax)
    assert 2 <= len(labels) <= 5 and all(label.replace(".", "").isdigit() for label in labels)


def _seeds_figures(study: str) -> dict[str, object]:
    tables = read_tables({t: str(SEEDS / f"tables/{study}/{t}.csv") for t in TABLES if t != "environment"}
                         | {"environment": str(SEEDS / f"environment/{study}.csv")})
    return importlib.import_module(f"jaxpitfalls.studies.{study}.report").figures(tables)


@pytest.mark.parametrize("study", ["dispatch", "tree_at", "extraction", "generation"])
def test_each_study_s_figures_draw_intervals_plain_ticks_and_no_line_through_one_value(study):
    """Every figure of a study from the published reference's tables: intervals on every series drawn from a
    table that has them (all of them here), tick labels in plain numbers, x labels apart, lines at a single x
    value labelled with that value alone (generation's speed drew one on an axis of 14.25-15.75), no legend of
    one entry."""
    for name, fig in _seeds_figures(study).items():
        for ax in (a for a in fig.axes if a.get_visible()):
            series = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
            assert all(c.has_yerr or c.has_xerr for c in series), name
            assert not [label for label in _y_labels(ax) if "times" in label or "^" in label], name
            assert not [label for label in _y_labels(ax) + _labels(ax) if re.search(r"\de[+-]", label)], name
            if ax.get_yscale() == "log":  # every point between two labelled ticks: its value can be read
                ticks = [t.get_position()[1] for t in ax.get_yticklabels() if t.get_text()]
                ys = [y for c in series for y in c.lines[0].get_ydata()]
                assert min(ticks) <= min(ys) and max(ys) <= max(ticks), (name, ticks, ys)
            assert _closest_labels(ax) >= 0.9, name
            xs = {x for c in series if c.lines[0].get_linestyle() != "None" for x in c.lines[0].get_xdata()}
            assert len(xs) != 1 or len(_labels(ax)) == 1, name  # lines at one x: that value, not a made-up axis
            assert ax.get_legend() is None or len(ax.get_legend().get_texts()) > 1, name
        _assert_legends_beside_the_panels(fig, name)
        plt.close(fig)


def test_dispatch_draws_the_axis_its_compute_claim_is_judged_on():
    """A reference run's overhead_vs_compute drew the hidden size from jobs of their own (a bar reaching ~900 ms, read
    as overhead growing with compute) and not the dropout and attention settings the claim is judged on."""
    ax = _seeds_figures("dispatch")["overhead_vs_compute"].axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["dropout0", "dropout0-attentionfused"]
    assert [p for p in ax.patches if p.get_x() < 0 < p.get_x() + p.get_width()]  # the band the claim holds inside
    plt.close(ax.figure)


def test_the_time_split_draws_each_pass_s_interval():
    fig = _seeds_figures("extraction")["time_split"]
    totals = [c for ax in fig.axes for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert all(t.has_yerr for t in totals) and sum(len(t.lines[0].get_xdata()) for t in totals) == 7  # one a variant
    plt.close(fig)


def test_stacked_bars_of_unlike_size_get_panels_of_their_own_scale():
    """A smoke run's eager pass (70 ms) beside jitted ones (1.3-3 ms) on one axis: the jitted bars' parts unseen."""
    assert scale_groups(np.array([70.0, 3.0, 2.5, 80.0, 0.0, np.nan])) == [[0, 3], [1, 2, 4, 5]]
    assert scale_groups(np.array([4.0, 1.0, 0.1])) == [[0, 1], [2]]  # a fifth of its panel's tallest, or apart
    assert scale_groups(np.array([2.0, 70.0, 3.0])) == [[0, 2], [1]]  # the floor's panel first, not the tallest
    table = pd.DataFrame({"forward": [70.0, 2.0, 1.2], "transfer": [1.0, 0.5, 0.1]}, index=["eager", "jit", "scan"])
    fig = stacked_bars(table)
    assert [[t.get_text() for t in ax.get_xticklabels()] for ax in fig.axes] == [["eager"], ["jit", "scan"]]
    assert fig.axes[1].get_ylim()[1] < 5  # the jitted panel on its own scale
    assert len(fig.axes[1].get_legend().get_texts()) == 2  # one legend, beside the last panel
    plt.close(fig)


def test_a_log_axis_over_decades_labels_ticks_around_every_point():
    """extraction's throughput: eager's 36 tokens/s sat below the lowest label (50) of an axis from 50 to 125."""
    data = pd.DataFrame({"variant": ["eager", "jit"], "configuration": "base", "rate": [36.0, 112.0],
                         "low": [35.0, 110.0], "high": [37.0, 114.0]})
    ax = bars(data, x="variant", y="rate", hue="configuration", low="low", high="high", log=True).axes[0]
    assert _y_labels(ax) == ["20", "50", "100", "200"]


def test_the_history_figure_keeps_its_legend_beside_the_panels_after_rotating_its_ticks():
    """The equinox history's published table: its figure's legend lay over the jit_partition / jit_flat
    pipelined panel, the panels laid out again after their ticks were rotated."""
    from jaxpitfalls.across_runs.history import rejudge
    from jaxpitfalls.across_runs.history.history import figure
    from jaxpitfalls.across_runs.history.release_levels import release_levels

    ratios = rejudge.read_table(Path(__file__).parents[1] / "docs" / "results" / "history" / "equinox.csv")
    releases = list(dict.fromkeys(ratios.release))
    fig = figure(release_levels(ratios), rejudge.rejudged(ratios, "equinox"), releases, "equinox")
    _assert_legends_beside_the_panels(fig, "history")
    plt.close(fig)


def _assert_legends_beside_the_panels(fig, name: str) -> None:
    """No legend lies over a panel or the title (generation's speed legend hid two variants' lines in the first
    panel)."""
    fig.canvas.draw()
    panels = [ax.get_window_extent() for ax in fig.axes if ax.get_visible()]
    panels += [fig._suptitle.get_window_extent()] if fig._suptitle else []  # nor over the figure's title
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]:
        box = legend.get_window_extent()
        assert not any(box.overlaps(panel) for panel in panels), name


def test_the_scorecard_figure_labels_ticks_around_every_ratio():
    """scorecard.png labelled its ratio axis at 0.1 and 100 alone, squeezed beside its legend."""
    from jaxpitfalls.report.scorecard.claims_figure import claims_figure

    points = pd.DataFrame({"label": ["a", "b", "c"], "unit": "x", "value": [0.6, 1.2, 56.0], "low": [0.25, 1.1, 50.0],
                           "high": [1.5, 1.3, 60.0], "theirs_low": [float("nan"), 1.5, 56.0],
                           "theirs_high": [float("nan"), 1.5, 56.0], "verdict": "reproduced", "supporting": False})
    fig = claims_figure(points.assign(edges=[()] * len(points)))
    ax = fig.axes[0]
    ticks = [t.get_position()[0] for t in ax.get_xticklabels() if t.get_text()]
    assert min(ticks) <= 0.25 and max(ticks) >= 60.0 and {1.0, 2.0, 5.0, 10.0} <= set(ticks), ticks
    assert _closest_labels(ax) >= 0.9
    plt.close(fig)


def test_a_long_axis_label_is_drawn_whole_inside_the_figure():
    """overhead_vs_compute's x label ran off the figure's right edge."""
    from jaxpitfalls.contract.figures import interval_dots

    rows = pd.DataFrame({"label": ["dropout0"], "value": [0.2], "low": [-1.0], "high": [1.5]})
    fig = interval_dots(rows, band=1.07, xlabel="filter_jit's overhead over jit_partition, minus the base's "
                        "(ms/step), paired round by round in the base's own job")
    fig.canvas.draw()
    box = fig.axes[0].xaxis.label.get_window_extent()
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width
    plt.close(fig)


def test_a_pass_that_does_not_wait_for_its_forward_is_never_drawn_as_transfer():
    """time_split drew pipelined's and scanned's wait for the forward as transfer."""
    from jaxpitfalls.studies.extraction.report import time_split

    base = pd.DataFrame({"forward_ms": [300.0, 5.0], "transfer_ms": [50.0, 340.0], "storage_ms": [10.0, 10.0]},
                        index=["jit", "pipelined"])
    split = time_split(base)
    assert split.loc["pipelined", "transfer"] == 0 and split.loc["pipelined", "forward"] == 0
    assert split.loc["pipelined", "waiting for the forward, then transfer"] == 340.0
    assert split.loc["jit", "transfer"] == 50.0 and split.sum(axis=1).tolist() == [360.0, 355.0]


def test_two_points_are_drawn_as_points_not_a_line():
    """step_vs_compute joined hidden 64 and 768 by a line, a trend no run measured."""
    data = pd.DataFrame({"hidden": [64, 768, 64, 768, 1024], "ms": [28.0, 440.0, 27.0, 430.0, 600.0],
                         "variant": ["a", "a", "b", "b", "b"], "axis": "hidden"})
    ax = facet_lines(data[data.variant == "a"], x="hidden", y="ms", hue="variant", col="axis").axes[0]
    (series,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert series.lines[0].get_linestyle() == "None"
    ax = facet_lines(data[data.variant == "b"], x="hidden", y="ms", hue="variant", col="axis").axes[0]
    (series,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert series.lines[0].get_linestyle() == "-"
    plt.close("all")


def test_the_scorecard_s_ratio_axis_over_many_decades_keeps_its_labels_apart():
    """A 1500x point put 2000 beside 1000 at the axis' end, their labels run into each other."""
    from jaxpitfalls.report.scorecard.claims_figure import claims_figure

    long = "extraction: eager/jit = eager/jit_padded_async = eager/pipelined"  # the panel as narrow as published
    points = pd.DataFrame({"label": [long, "b"], "unit": "x", "value": [0.5, 1500.0], "low": [0.25, 1200.0],
                           "high": [0.8, 1800.0], "theirs_low": float("nan"), "theirs_high": float("nan"),
                           "verdict": "reproduced", "supporting": False})
    fig = claims_figure(points.assign(edges=[()] * len(points)))
    ax = fig.axes[0]
    ticks = [t.get_position()[0] for t in ax.get_xticklabels() if t.get_text()]
    assert min(ticks) <= 0.25 and max(ticks) >= 1800.0 and _closest_labels(ax) >= 0.9, ticks
    plt.close(fig)


def test_the_scorecard_s_panels_start_just_under_its_legend():
    """Three expectations' scorecard left an inch of blank between its legend and its panel."""
    from jaxpitfalls.report.scorecard.claims_figure import claims_figure

    points = pd.DataFrame({"label": ["a", "b", "c"], "unit": "x", "value": [1.2, 10.9, 120.0], "low": [1.1, 9.0, 100.0],
                           "high": [1.3, 12.0, 140.0], "theirs_low": float("nan"), "theirs_high": float("nan"),
                           "verdict": "reproduced", "supporting": False, "expected": True})
    fig = claims_figure(points.assign(edges=[()] * len(points)))
    fig.canvas.draw()
    legend_bottom = fig.legends[0].get_window_extent().y0
    assert 0 < (legend_bottom - fig.axes[0].get_window_extent().y1) / fig.dpi <= 0.3
    plt.close(fig)


def test_a_log_axis_says_so_and_a_narrow_ratio_axis_labels_its_reference():
    """A benchmark file's ratios read 0.9, 1.05, 1.2 around an unlabelled dashed line on an unlabelled log axis."""
    data = pd.DataFrame({"axis": "width", "value": [256, 1024], "ratio": [1.2, 0.88], "low": [1.13, 0.80],
                         "high": [1.28, 0.96], "variant": "filter_jit"})
    ax = facet_lines(data, x="value", y="ratio", hue="variant", col="axis", low="low", high="high", log="y",
                     reference=1.0, ylabel="time / jit's").axes[0]
    assert ax.get_ylabel() == "time / jit's, log scale, dashed: 1" and "1" in _y_labels(ax)
    long = facet_lines(data, x="value", y="ratio", hue="variant", col="axis", log="y", reference=1.0,
                       ylabel="unbatched / batched time").axes[0]  # tree_at's was cut at both ends
    assert long.get_ylabel() == "unbatched / batched time,\nlog scale, dashed: 1"  # each part whole, not "dashed:\n1"
    assert _y_label("time / loop's", log=True, reference=1.0) == "time / loop's, log scale,\ndashed: 1"


def test_stacked_bars_write_each_bar_s_total_so_a_short_one_is_read():
    """A donated call's 0.06 ms bar beside a copied call's 5.8 ms could not be seen at all."""
    fig = stacked_bars(pd.DataFrame({"wait": [5.7, 0.0], "dispatch": [0.13, 0.064]}, index=["copied", "donated"]))
    assert [t.get_text() for ax in fig.axes for t in ax.texts] == ["5.83", "0.064"]


def test_a_narrow_log_axis_near_zero_is_labelled_at_its_ends_without_a_zero_tick():
    """Values 1.55-4.6 drew ticks 0, 2, 4, 6: a log axis cannot start at 0, and its bottom went unlabelled."""
    data = pd.DataFrame({"axis": "n", "value": [1, 2], "ms": [1.55, 4.6], "variant": "a"})
    ax = facet_lines(data, x="value", y="ms", hue="variant", col="axis", log="y").axes[0]
    low, high = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if low <= t <= high]
    assert low > 0 and min(ticks) <= 1.55 and max(ticks) >= 4.6


def test_the_scorecard_keys_only_what_it_draws():
    """make all's scorecard (every claim below the write-ups' structures) promised a grey write-up mark and filled
    dots it never drew."""
    from jaxpitfalls.report.scorecard.claims_figure import claims_figure

    points = pd.DataFrame({"label": ["a", "b"], "unit": "x", "value": [1.2, 3.0], "low": [1.1, 2.5],
                           "high": [1.3, 3.5], "theirs_low": float("nan"), "theirs_high": float("nan"),
                           "verdict": "reproduced", "supporting": True, "expected": False})
    fig = claims_figure(points.assign(edges=[()] * len(points)))
    labels = {h.get_label(): h.get_markerfacecolor() for h in fig.legends[0].legend_handles}
    assert "write-up" not in labels and labels["ours: reproduced"] == "white"
    assert fig._suptitle.get_text() == "Each claim's number here (95% interval)"
    plt.close(fig)


def test_one_panel_under_a_figure_title_has_no_panel_title_of_its_own():
    """tree_at's speedup figure read "variant = unbatched" above its only panel, on a ratio of both variants."""
    data = pd.DataFrame({"variant": "unbatched", "value": [24, 48], "ratio": [5.8, 10.7], "mode": "direct"})
    one = facet_lines(data, x="value", y="ratio", hue="mode", col="variant", title="Speedup of batching")
    assert one.axes[0].get_title() == ""
    two = facet_lines(pd.concat([data, data.assign(variant="other")]), x="value", y="ratio", hue="mode", col="variant",
                      title="Two")
    assert [ax.get_title() for ax in two.axes[:2]] == ["variant = unbatched", "variant = other"]


def test_a_long_figure_title_over_one_panel_is_drawn_whole_inside_the_figure():
    """A walk's memory figure, one panel: "remat_scan: planned memory of the largest program, per device" lost its
    first and last letters at both edges."""
    data = pd.DataFrame({"axis": "depth", "value": [2, 8], "total": [0.3, 0.9], "variant": "remat"})
    fig = facet_lines(data, x="value", y="total", hue="variant", col="axis",
                      title="remat_scan: planned memory of the largest program, per device")
    fig.canvas.draw()
    box = fig._suptitle.get_window_extent()
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width
    plt.close(fig)
