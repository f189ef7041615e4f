"""Whether a write-up's number held in size: its number beside ours, judged on the effect (a ratio's distance from
1, an exponent itself, a share in points) on our 95% interval, only where the write-up's number is dimensionless;
and the scorecard's figure, which draws every claim's headline."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
import yaml

from jaxpitfalls import registry
from jaxpitfalls.contract.decisions import at_write_up_structure
from jaxpitfalls.contract.interface import Claim, Number
from jaxpitfalls.contract.verdicts import Estimate, Judged
from jaxpitfalls.report.scorecard.build import declared, judged_rows
from jaxpitfalls.report.scorecard.claims_figure import claim_points
from jaxpitfalls.report.scorecard.magnitude import device_here, size, size_cell

BATCHING = Number(7.6, 7.6, "x", structural=True, at={"layers": 12})
SHARE = Number(73, 74, "%", structural=True, at={"layers": 12})
SPEEDUP = Number(1.23, 1.27, "x", structural=False, at={"layers": 12, "hidden": 768},
                 differs="a GPU there, {here} here")
OVERHEAD = Number(46.8, 47.2, " ms", structural=False, at={"layers": 12}, differs="the host's Python")
SLOWDOWN = Number(0.15, 0.15, "x (short / proper)", structural=False, differs="an RTX 4070 there")


@pytest.mark.parametrize(("number", "ours", "cell", "held", "sure"), [
    (BATCHING, (7.0, 6.5, 8.0), "in range", True, True),
    (BATCHING, (5.88, 5.86, 5.90), "1.35x smaller", True, True),  # the gains 4.88 and 6.6: within 1.5x
    (BATCHING, (5.864, 5.253, 6.546), "1.36x smaller [1.19x, 1.55x]", True, False),  # tree_at: its far end beyond
    (BATCHING, (5.0, 4.5, 8.0), "**1.65x smaller [1.89x smaller, 1.06x larger]**", False, False),  # reaches 7.6
    (BATCHING, (7.6, 3.0, 12.0), "in range [3.30x smaller, 1.67x larger]", True, False),  # held, its ends not
    (BATCHING, (0.95, 0.9, 6.5), "**opposite direction [opposite direction, 1.20x smaller]**", False, False),
    (Number(0.9, 1.0, "x", structural=True), (0.95, 0.93, 0.97), "in range", True, True),  # "no gain", met
    (Number(0.9, 1.0, "x", structural=True), (1.0, 0.99, 1.0), "in range", True, True),  # touching no change
    (BATCHING, (1.057, 1.02, 1.098), "**over 100x smaller**", False, True),  # init_faster: 5.7% against 660%
    (BATCHING, (20.0, 16.0, 24.0), "**2.88x larger**", False, True),
    (BATCHING, (0.9, 0.8, 0.95), "**opposite direction**", False, True),
    (SPEEDUP, (1.013, 1.005, 1.029), "**18x smaller**", False, True),  # a gain of 1.3% against 23%
    (SPEEDUP, (1.008, 0.919, 1.115), "**29x smaller**", False, True),  # at most 2x smaller, or the opposite
    (Number(5, 10, "x", structural=False, differs="d"), (3.139, 3.0, 3.3), "**1.87x smaller**", False, True),
    (SLOWDOWN, (0.164, 0.134, 0.2), "in range", True, True),  # a slowdown's effect: 1/x - 1, either side alike
    (SLOWDOWN, (0.5, 0.45, 0.55), "**5.67x smaller**", False, True),
    (SHARE, (71.0, 65.0, 77.0), "in range", True, True),
    (SHARE, (60.0, 58.0, 62.0), "13 points less", True, True),
    (SHARE, (60.0, 52.0, 66.0), "13 points less [7 points, 21 points]", True, False),
    (SHARE, (73.5, 50.0, 90.0), "in range [23 points less, 16 points more]", True, False),
    (SHARE, (57.6, 57.3, 57.8), "**15.4 points less**", False, True),  # past 15 points, not rounded onto them
    (BATCHING, (5.388, 5.38, 5.39), "**1.504x smaller**", False, True),  # past 1.5x, not rounded onto it
    (SHARE, (37.0, 35.0, 40.0), "**36 points less**", False, True),  # a factor would have called this the same size
    (Number(1, 1, " exponent", structural=True), (0.867, 0.832, 0.902), "1.15x smaller", True, True),
])
def test_a_number_held_in_size_where_our_estimate_lies_within_the_tolerance_of_its_effect(number, ours, cell,
                                                                                           held, sure):
    """Held, or not, by our estimate; sure where the whole interval lies on the same side of the tolerance."""
    found = size(number, ours, "this CPU")
    assert (found.cell, found.held, found.sure) == (cell, held, sure)


def test_where_a_smaller_structures_number_lies_is_read_off_our_estimate_not_the_intervals_ends():
    from jaxpitfalls.report.scorecard.magnitude import _where

    assert _where("**1.65x smaller [1.89x smaller, 1.06x larger]**") == "below the write-up's"
    assert _where("in range [3.30x smaller, 1.67x larger]") == "inside the write-up's range"


def test_an_absolute_time_is_shown_beside_ours_never_judged():
    found = size(OVERHEAD, (13.0, 11.0, 15.0), "this CPU")
    assert found.held is None and found.cell == "— (absolute: host-bound)"
    assert found.side_by_side == "46.8-47.2 ms vs 13 ms (the host's Python)"  # not judged: no interval shown
    assert size(BATCHING, (7.0, 7.0, 7.0), "this CPU").side_by_side == "7.6x vs 7x"  # no interval: none shown
    assert size(SLOWDOWN, (0.164, 0.134, 0.2), "").side_by_side == "0.15x (short / proper) vs 0.164x [0.134, 0.2]"


def test_what_differs_names_the_device_the_run_measured_on():
    """A GPU run's scorecard said 'this CPU' wherever a write-up's number differs by hardware."""
    gpu = pd.DataFrame({"backend": ["gpu"], "device_kind": ["NVIDIA H200"]})
    cpu = pd.DataFrame({"backend": ["cpu"], "device_kind": ["cpu"]})
    assert device_here(gpu) == "this NVIDIA H200" and device_here(cpu) == "this CPU"
    assert size(SPEEDUP, (1.02, 1.01, 1.03), device_here(gpu)).side_by_side.endswith(
        "(a GPU there, this NVIDIA H200 here)")


def test_every_write_up_number_names_the_device_only_through_its_placeholder():
    for study in registry.names():
        for claim in registry.spec(study).claims.values():
            for number in claim.numbers:
                assert "this CPU" not in number.differs.format(here="this device"), (study, number.differs)


def test_only_a_dimensionless_number_can_be_set_by_the_structure():
    with pytest.raises(ValueError, match="only a dimensionless number"):
        Number(46.8, 47.2, " ms", structural=True)
    with pytest.raises(ValueError, match="say what differs"):
        Number(1.2, 1.3, "x", structural=False)
    assert Number(2, 2, "exponent", structural=True).dimensionless and SHARE.is_share


def test_not_measured_names_the_write_ups_structure():
    found = size(SPEEDUP, None, "this CPU")
    assert (found.cell, found.held) == ("— (not measured here)", None)
    assert found.side_by_side == "1.23-1.27x vs not measured at the write-up's structure (layers 12, hidden 768)"


def test_the_write_ups_structure_prefers_the_base_configuration():
    table = pd.DataFrame([
        {"config_id": "l12-h768", "axes": "hidden", "layers": 12, "hidden": 768},
        {"config_id": "l12-h64", "axes": "base,layers,hidden,dropout", "layers": 12, "hidden": 64},
        {"config_id": "l24-h64", "axes": "layers", "layers": 24, "hidden": 64},
    ])
    assert at_write_up_structure(table, SPEEDUP) == "l12-h768"
    assert at_write_up_structure(table, Number(1, 1, "x", True, at={"layers": 4})) is None
    assert at_write_up_structure(table, BATCHING) == "l12-h64"


def test_write_up_numbers_need_a_positive_range():
    with pytest.raises(ValueError, match="0 < low <= high"):
        Number(2, 1, "x", structural=True)


@pytest.mark.parametrize("name", registry.names())
def test_every_numbered_claim_names_keys_its_configurations_have(name):
    spec = registry.spec(name)
    base_keys = set(yaml.safe_load(spec.schema.read_text())["properties"]["base"]["required"])
    for claim in spec.claims.values():
        for number in claim.numbers:
            assert set(number.at) <= base_keys, (name, claim.text)


def test_a_report_must_measure_each_of_the_write_ups_numbers():
    spec = registry.spec("dispatch")
    rows = [{"claim": key, "measured": "", "verdict": "inconclusive",
             "ours": (None,) * len(claim.numbers)} for key, claim in spec.claims.items() if claim.judged]
    assert [row["numbers"] for row in declared(spec, rows)] == [c.numbers for c in spec.claims.values()]
    rows[0] = rows[0] | {"ours": ()}
    with pytest.raises(ValueError, match="claim 'slower': its judge measured 0 numbers, the spec's write-up "
                                         "gives 5"):
        declared(spec, rows)


def _row(key, numbers, ours, headline, verdict="reproduced", **more):
    return {"key": key, "numbers": numbers, "ours": ours, "headline": headline, "verdict": verdict} | more


def test_the_scorecard_figure_draws_every_headline_and_the_write_up_where_the_size_column_judges_it():
    claims = {"s": [
        _row("a", (BATCHING,), ((7.0, 6.5, 7.5),), Estimate(7.0, 6.5, 7.5)),
        _row("b", (BATCHING,), (None,), Estimate(2.0, 1.5, 2.5), supporting=True),  # below the structure: hollow
        _row("c", (BATCHING,), (None,), None, "inconclusive"),  # nothing judged: not drawn
        _row("d", (OVERHEAD,), ((13.0, 11.0, 15.0),), Estimate(13.0, 11.0, 15.0, " ms")),  # its own panel
        _row("e", (BATCHING,), ((23.9, 20.0, 27.0),), Estimate(2.0, 1.9, 2.1)),  # ours like theirs: an aside
        _row("f", (), (), Estimate(3.0, 3.0, 3.0, " compilations")),
    ]}
    points = claim_points(claims)
    assert list(points.label) == ["s: a", "s: b", "s: d", "s: e", "s: f"]
    assert list(points.value) == [7.0, 2.0, 13.0, 2.0, 3.0] and list(points.supporting) == [False, True] + [False] * 3
    assert list(points.unit) == ["x", "x", "ms", "x", "count"]  # counted things share an axis
    # beside the headline where the size column judges it by the write-up's number: in one unit, at its structure
    assert points.theirs_low.notna().tolist() == [True, False, True, True, False]


def test_claims_resting_on_one_measurement_share_one_mark():
    claims = {"s": [_row("a", (), (), Estimate(2.0, 1.9, 2.1)), _row("b", (), (), Estimate(2.0, 1.9, 2.1)),
                    _row("c", (), (), Estimate(0.5, 0.4, 0.6), restates="a")]}
    assert list(claim_points(claims).label) == ["s: a = b = c"]


def test_the_scorecard_figure_has_a_labelled_axis_for_every_unit_and_both_ends_of_its_ratios():
    """A reference run's distortion: the write-up's 0.15x left of 1, where the axis had no label."""
    from jaxpitfalls.report.scorecard.claims_figure import claims_figure

    claims = {"s": [_row("a", (BATCHING,), ((7.0, 6.5, 7.5),), Estimate(7.0, 6.5, 7.5))],
              "t": [_row("b", (replace(BATCHING, low=0.15, high=0.15),), ((1.39, 1.32, 1.47),),
                         Estimate(1.39, 1.32, 1.47)),
                    _row("c", (), (), Estimate(1550.0, 1400.0, 1700.0, " ms"))]}
    fig = claims_figure(claim_points(claims))
    ratios, times = fig.axes[:2]
    assert ratios.get_xlim() == pytest.approx((0.1, 10.0)) and times.get_xlabel() == "ms"
    fig.canvas.draw()
    for ax in (ratios, times):
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert labels and not any("e+" in t or "e-" in t or "$" in t for t in labels), labels  # plain numbers


def test_a_ratio_interval_reaching_zero_stops_at_the_axis_with_an_arrow_and_the_layout_holds():
    """A smoke run's share of a gap, [-0.42, 5.4]x: drawn whole on the log axis it ran off the figure's left."""
    import warnings

    from jaxpitfalls.report.scorecard.claims_figure import claims_figure

    claims = {"s": [_row("a", (), (), Estimate(1.16, -0.42, 5.4)), _row("b", (), (), Estimate(2.0, 1.5, 2.5))]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "Tight layout not applied"
        fig = claims_figure(claim_points(claims))
    ratios = fig.axes[0]
    left = ratios.get_xlim()[0]
    assert [(float(line.get_xdata()[0]), int(line.get_ydata()[0])) for line in ratios.lines
            if line.get_marker() == "<"] == [(left, 0)]
    assert "interval reaches 0 or below" in [t.get_text() for t in fig.legends[0].get_texts()]
    assert fig.axes[0].get_tightbbox().width < fig.bbox.width


def test_a_report_must_return_typed_rows():
    judged = Judged(claim="slower", measured="1.2x", verdict="reproduced", ours=(None,))
    assert judged_rows("dispatch", [judged]) == [{"claim": "slower", "measured": "1.2x", "verdict": "reproduced",
                                                  "ours": (None,), "judged_ratio": None, "supporting": False,
                                                  "edges": (), "headline": None, "ceiling": None}]
    with pytest.raises(TypeError, match=r"study dispatch: its claims must be contract.verdicts.Judged rows, got "
                                        r"\['dict'\]"):
        judged_rows("dispatch", [{"claim": "slower"}])


def test_the_rule_comes_from_the_spec_beside_its_claim():
    spec = registry.spec("dispatch")
    rows = [{"claim": key, "measured": "", "verdict": "inconclusive", "ours": (None,) * len(claim.numbers)}
            for key, claim in spec.claims.items() if claim.judged]
    by_key = {row["key"]: row for row in declared(spec, rows)}
    assert by_key["slower"]["rule"] == spec.claims["slower"].rule and "above 1" in by_key["slower"]["rule"]
    assert by_key["flax_reference"]["rule"] == ""  # not measured: no rule
    with pytest.raises(ValueError, match="a judged claim says its rule"):
        Claim("judged without a rule", "1x")
    with pytest.raises(ValueError, match="one no report judges has none"):
        Claim("not measured, yet a rule", "1x", rule="above 1", not_measured="no accelerator")


def test_a_claim_not_testable_here_shows_the_ceiling_of_this_hardware_in_place_of_its_size():
    """dispatch's `slower` on this CPU: 1.01x on a 613 ms step against the write-up's 1.23-1.27x, where the
    overhead can add at most 1.5%: its size says what this hardware can show, not a judgement of the write-up's."""
    row = _row("slower", (SPEEDUP, OVERHEAD), ((1.008, 0.919, 1.115), (9.3, 8.0, 10.6)),
               Estimate(1.008, 0.919, 1.115), "not testable", ceiling=1.0153)
    assert size_cell(row) == "— (at most 1.015x here)"
    assert size_cell(row | {"verdict": "inconclusive"}) == "**29x smaller**"  # a gain of 0.8%, 11.5% at most, for 23%
