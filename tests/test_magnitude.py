"""The scorecard's magnitude verdicts: the write-up's number beside ours, judged only where the structure
sets a dimensionless number, on our 95% interval, and only at the write-up's structure."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
import yaml

from jaxpitfalls.contract import registry
from jaxpitfalls.contract.interface import Claim, Number
from jaxpitfalls.contract.verdicts import Judged
from jaxpitfalls.report.build import declared, judged_rows, ratio_points
from jaxpitfalls.report.claims import at_write_up_structure
from jaxpitfalls.report.magnitude import device_here, magnitude
from jaxpitfalls.report.scorecard import UNCOMPARED, _sizes

BATCHING = Number(7.6, 7.6, "x", structural=True, at={"layers": 12})
SHARE = Number(73, 74, "%", structural=True, at={"layers": 12})
SPEEDUP = Number(1.23, 1.27, "x", structural=False, at={"layers": 12, "hidden": 768},
                 differs="a GPU there, {here} here")
OVERHEAD = Number(46.8, 47.2, " ms", structural=False, at={"layers": 12}, differs="the host's Python")


@pytest.mark.parametrize("ours, verdict", [
    ((7.0, 6.5, 7.5), "same size"),
    ((4.0, 3.5, 4.5), "same size"),          # within the factor 2 of the hosts
    ((2.0, 1.8, 3.0), "**3.8x smaller**"),   # the interval stays below 7.6 / 2
    ((20.0, 16.0, 24.0), "**2.6x larger**"),
    ((-2.0, -4.0, 0.5), "opposite sign"),
])
def test_structural_ratios_are_judged_within_a_factor_on_the_interval(ours, verdict):
    side_by_side, size = magnitude(BATCHING, ours, "this CPU")
    assert size == verdict
    assert side_by_side.startswith("7.6x vs ")


@pytest.mark.parametrize("ours, verdict", [
    ((71.0, 65.0, 77.0), "same size"),
    ((60.0, 58.0, 62.0), "same size"),             # 11 points below the write-up's low end
    ((37.0, 35.0, 40.0), "**33 points less**"),    # a factor 2 would have called this the same size
    ((100.0, 100.0, 100.0), "**26 points more**"),
])
def test_shares_are_judged_in_percentage_points(ours, verdict):
    assert magnitude(SHARE, ours, "this CPU")[1] == verdict


def test_a_single_number_is_shown_without_an_interval():
    assert magnitude(BATCHING, (7.0, 7.0, 7.0), "this CPU")[0] == "7.6x vs 7x"


def test_numbers_the_structure_does_not_set_show_the_factor_and_what_differs():
    assert magnitude(SPEEDUP, (1.02, 0.9, 1.2), "this CPU")[1] == "1.2x smaller; differs: a GPU there, this CPU here"
    assert magnitude(SPEEDUP, (1.25, 1.2, 1.3), "this CPU")[1] == "same size; differs: a GPU there, this CPU here"
    assert magnitude(OVERHEAD, (13.0, 11.0, 15.0), "this CPU")[1] == "3.6x smaller; differs: the host's Python"


def test_what_differs_names_the_device_the_run_measured_on():
    """A GPU run's scorecard said 'this CPU' wherever a write-up's number differs by hardware."""
    gpu = pd.DataFrame({"backend": ["gpu"], "device_kind": ["NVIDIA H200"]})
    cpu = pd.DataFrame({"backend": ["cpu"], "device_kind": ["cpu"]})
    assert device_here(gpu) == "this NVIDIA H200" and device_here(cpu) == "this CPU"
    assert magnitude(SPEEDUP, (1.02, 1.01, 1.03), device_here(gpu))[1] == (
        "1.2x smaller; differs: a GPU there, this NVIDIA H200 here")


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
    assert magnitude(SPEEDUP, None, "this CPU") == ("1.23-1.27x vs not measured",
                                        "not measured at the write-up's structure (layers 12, hidden 768)")


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
                                         "gives 3"):
        declared(spec, rows)


def test_the_scorecard_figure_draws_ours_at_the_write_ups_structure_else_the_judged_ratio_hollow():
    claims = {"s": [
        {"key": "a", "numbers": (BATCHING,), "ours": ((7.0, 6.5, 7.5),), "verdict": "reproduced"},
        {"key": "b", "numbers": (BATCHING,), "ours": (None,), "judged_ratio": (2.0, 1.5, 2.5), "verdict": "reproduced"},
        {"key": "c", "numbers": (BATCHING,), "ours": (None,), "verdict": "inconclusive"},  # nothing judged: not drawn
        {"key": "d", "numbers": (OVERHEAD,), "ours": ((13.0, 11.0, 15.0),), "verdict": "reproduced"},  # not a ratio
    ]}
    points = ratio_points(claims)
    assert list(points.label) == ["s: a", "s: b"] and list(points.at_structure) == [True, False]
    assert list(points.ours) == [7.0, 2.0]


def test_the_scorecard_figure_shows_a_write_up_s_single_number_not_only_its_ranges():
    from jaxpitfalls.report.plots import claims_figure

    claims = {"s": [{"key": "a", "numbers": (BATCHING,), "ours": ((7.0, 6.5, 7.5),), "verdict": "reproduced"}]}
    points = ratio_points(claims)
    assert points.theirs_low.iloc[0] == points.theirs_high.iloc[0]  # 7.6x: a line of no length
    fig = claims_figure(points)
    theirs = next(line for line in fig.axes[0].lines if line.get_label() == "write-up")
    fig.canvas.draw()
    assert theirs.get_marker() == "o" and theirs.get_window_extent().width > 0  # drawn, not a zero-length line


def test_the_scorecard_figure_spans_whole_decades_so_both_ends_are_labelled():
    """The 2026-11-26-8 reference's distortion: the write-up's 0.15x left of 1, where the axis had no label."""
    from jaxpitfalls.report.plots import claims_figure

    claims = {"s": [{"key": "a", "numbers": (BATCHING,), "ours": ((7.0, 6.5, 7.5),), "verdict": "reproduced"}],
              "t": [{"key": "b", "numbers": (replace(BATCHING, low=0.15, high=0.15),), "ours": ((1.39, 1.32, 1.47),),
                     "verdict": "reproduced"}]}
    assert claims_figure(ratio_points(claims)).axes[0].get_xlim() == pytest.approx((0.1, 10.0))


def test_a_report_must_return_typed_rows():
    judged = Judged(claim="slower", measured="1.2x", verdict="reproduced", ours=(None,))
    assert judged_rows("dispatch", [judged]) == [{"claim": "slower", "measured": "1.2x", "verdict": "reproduced",
                                                  "ours": (None,), "judged_ratio": None, "supporting": False}]
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


@pytest.mark.parametrize("verdict", ["not testable", "inconclusive"])
def test_a_claim_not_testable_here_shows_its_headline_number_without_judging_its_size(verdict):
    """dispatch's `slower` on this CPU: 1.01x on a 613 ms step against the write-up's 1.23-1.27x, where the
    overhead can add at most 1.5%: the step times are still shown with what differs, the ratio is not judged."""
    row = {"numbers": [SPEEDUP, OVERHEAD], "ours": [(1.008, 0.919, 1.115), (9.3, 8.0, 10.6)], "verdict": verdict}
    (ratio, ratio_size), (_, overhead_size) = _sizes(row, "this CPU")
    assert ratio == "1.23-1.27x vs 1.01x [0.919, 1.11]"
    assert (ratio_size == UNCOMPARED) == (verdict == "not testable")
    assert overhead_size.endswith("differs: the host's Python")
