"""The HTML report's landing page: the markdown report's findings as reStructuredText, shown as written."""

from __future__ import annotations

import base64

from docutils.core import publish_parts

from jaxpitfalls.contract.interface import Advice
from jaxpitfalls.report.scorecard.landing import landing_rst
from jaxpitfalls.report.scorecard.scorecard import findings_section


def _claim(key: str, verdict: str, advice: Advice | None = None, beyond: bool = False) -> dict:
    return {"key": key, "verdict": verdict, "advice": advice, "beyond": beyond, "numbers": (), "ours": ()}


CLAIMS = {
    "dispatch": [
        _claim("a", "reproduced", Advice("Pass *args flat to jax.jit; filter_jit_ costs `leaves`.")),
        _claim("b", "inconclusive", Advice("never shown", "", "Measure at your sizes.")),
        _claim("c", "not measured"),
        _claim("d", "not reproduced", beyond=True),  # ours, beside the write-up's
    ],
    "tree_at": [_claim("e", "checked")],
}


def test_the_landing_page_says_what_the_markdown_report_says_with_rst_markup_escaped(tmp_path):
    figure = tmp_path / "scorecard.png"
    figure.write_bytes(b"\x89PNG" + bytes(range(256)) * 100)  # a data URI longer than docutils' longest line
    html = publish_parts(landing_rst(CLAIMS, figure), writer="html")["html_body"]
    uri = "data:image/png;base64," + base64.b64encode(figure.read_bytes()).decode()
    assert f'src="{uri}"' in html  # embedded whole: the HTML report is one file
    said = "Pass *args flat to jax.jit; filter_jit_ costs `leaves`. Measure at your sizes."
    assert f"<strong>dispatch</strong>: {said}" in html.replace("&quot;", '"')
    assert f"- **dispatch**: {said}" in findings_section(CLAIMS)
    assert "<strong>tree_at</strong>: nothing decided on this run." in html
    score = html[html.index("4 effects in the write-ups' 4 claims: "):]
    assert score.startswith("4 effects in the write-ups' 4 claims: 1 yes, size not compared; 1 inconclusive; "
                            "1 checked; 1 not measured. 1 beyond them: 1 no.")  # ours counted apart
    assert "never shown" not in html and "problematic" not in html  # docutils marks markup errors so


def test_a_scorecard_row_is_one_line_of_numbers():
    from jaxpitfalls.contract.interface import Number
    from jaxpitfalls.contract.verdicts import Estimate
    from jaxpitfalls.report.scorecard.scorecard import scorecard_section

    measured = "5.9x [5.8, 6.0] at 24 (30 ms -> 5 ms; 24 transforms); 10.8x at 48"
    rows = {"tree_at": [_claim("faster", "reproduced") | {
        "claim": "c", "write_up": "7.6x", "measured": measured, "numbers": (Number(7.6, 7.6, "x", True),),
        "ours": ((5.9, 5.8, 6.0),), "headline": Estimate(5.9, 5.8, 6.0, "x", "unbatched / batched")}]}
    cells = [c.strip() for c in scorecard_section(rows).splitlines()[-1].strip("|").split("|")]
    assert cells[3:] == ["unbatched / batched 5.900x [5.800, 6.000]", "1.35x smaller", "yes"]
    assert measured not in scorecard_section(rows)  # the reasoning goes to "How each claim was judged"


def test_the_findings_tell_the_picture_the_study_names_in_its_order_whatever_was_decided():
    rows = [{"verdict": v, "advice": Advice(f"{key} held.", f"{key} failed.", f"{key} undecided."), "beyond": False,
             "picture": picture, "key": key}
            for key, v, picture in (("gain", "reproduced", 0), ("noise", "reproduced", None),
                                    ("limit", "inconclusive", 2), ("cost", "not reproduced", 1))]
    assert findings_section({"tree_at": rows}).endswith("- **tree_at**: gain held. cost failed. limit undecided.\n")


def test_a_claim_restating_another_s_measurement_is_counted_once_and_drawn_once():
    """A reference run: generation's distortion is 1 / slowed_cached's measurement, counted as two "yes" rows and
    drawn as two agreeing marks in scorecard.png."""
    from jaxpitfalls.contract.interface import Number
    from jaxpitfalls.contract.verdicts import Estimate
    from jaxpitfalls.report.scorecard.claims_figure import claim_points
    from jaxpitfalls.report.scorecard.tally import tally

    six = (Number(5.8, 5.8, "x", structural=True),)
    rows = {"generation": [
        _claim("slowed", "reproduced") | {"numbers": six, "ours": ((6.4, 5.9, 7.0),),
                                          "headline": Estimate(6.4, 5.9, 7.0)},
        _claim("distortion", "reproduced") | {"numbers": six, "ours": ((6.4, 5.9, 7.0),), "restates": "slowed",
                                              "headline": Estimate(0.156, 0.143, 0.169)}]}
    assert tally(rows) == ("**The one write-up number this run could size held in size**. 1 effects in the "
                           "write-ups' 2 claims: 1 yes in size")
    assert list(claim_points(rows).label) == ["generation: slowed = distortion"]


def test_a_number_held_by_our_estimate_alone_is_named_so_in_the_first_line():
    """tree_at's batching: 5.864x [5.253, 6.546] against 7.6x, a gain 1.36x smaller by its estimate, 1.55x at its
    far end: held in size, by the estimate alone, and the line says which number and why."""
    from jaxpitfalls.contract.interface import Number
    from jaxpitfalls.contract.verdicts import Estimate
    from jaxpitfalls.report.scorecard.tally import numbers_line

    def faster(ours):
        return _claim("faster", "reproduced") | {"numbers": (Number(7.6, 7.6, "x", structural=True),),
                                                 "ours": (ours,), "headline": Estimate(*ours)}

    alone = [("tree_at", [faster((5.864, 5.253, 6.546))])]
    assert numbers_line(alone) == ("**The one write-up number this run could size held in size by our estimate "
                                   "alone**: tree_at faster, 1.36x smaller [1.19x, 1.55x], its interval reaching "
                                   "past 1.5x")
    from jaxpitfalls.report.scorecard.tally import tally

    assert tally({"tree_at": alone[0][1]}).endswith("1 effects in the write-ups' 1 claims: 1 yes in size by its "
                                                    "estimate")
    both = [*alone, ("dispatch", [faster((5.88, 5.86, 5.90)) | {"key": "other"}])]
    assert numbers_line(both) == ("**2 of the 2 write-up numbers this run could size held in size** (1 by our "
                                  "estimate alone: tree_at faster, 1.36x smaller [1.19x, 1.55x], its interval "
                                  "reaching past 1.5x)")


def test_verdicts_judged_at_a_smaller_structure_are_counted_apart_from_the_rest():
    """The issue's "labelled and not counted as at the write-up's structure": the tally gives them apart."""
    from jaxpitfalls.report.scorecard.tally import tally

    def claim(key, verdict, supporting=False, restates=None):
        return _claim(key, verdict) | {"supporting": supporting, "restates": restates}

    rows = {"dispatch": [claim("free", "inconclusive", True), claim("every", "reproduced", True),
                         claim("slower", "not testable")],
            "generation": [claim("slowed", "inconclusive"), claim("off", "inconclusive", restates="slowed")]}
    assert tally(rows).endswith(
        "4 effects in the write-ups' 5 claims: 1 yes, size not compared; 2 inconclusive; 1 not testable. Of "
        "these effects, 2 were judged only at a structure smaller than the write-up's or on another device (supporting "
        "only: 1 yes, size not compared; 1 inconclusive)")


def test_a_claim_restates_only_another_judged_claim_of_its_study():
    from dataclasses import replace

    import pytest

    from jaxpitfalls import registry

    spec = registry.spec("generation")
    assert spec.claims["distortion"].restates == "slowed_cached"
    for wrong in ("no_such_claim", "distortion", "load_outside_timing"):  # unknown, itself, a checked claim
        claims = dict(spec.claims) | {"distortion": replace(spec.claims["distortion"], restates=wrong)}
        with pytest.raises(ValueError, match="restates"):
            replace(spec, claims=claims)


def test_a_run_of_expectations_alone_draws_them_as_sentences_with_no_write_up(tmp_path):
    """Every row a benchmark file's expectation: each labelled by its sentence, the legend and title without a
    write-up, verdicts as held / did not hold."""
    from jaxpitfalls.contract.verdicts import Estimate
    from jaxpitfalls.report.scorecard.claims_figure import claim_points, claims_figure

    row = {"key": "a_faster_than_b", "claim": "a faster than b", "expected": True, "verdict": "not reproduced",
           "headline": Estimate(0.9, 0.8, 1.0, "x", "t(b) / t(a)"), "numbers": [], "beyond": False}
    band = row | {"key": "a_within_3", "claim": "a within 3% of b", "verdict": "reproduced", "edges": (0.971, 1.03),
                  "headline": Estimate(1.0, 0.99, 1.01, "x", "t(a) / t(b)")}
    points = claim_points({"mine": [row | {"edges": (1.0,)}, band]})
    assert list(points.label) == ["mine: a faster than b", "mine: a within 3% of b"] and points.expected.all()
    fig = claims_figure(points)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["held", "did not hold", "the sentence's edge"]
    assert fig._suptitle.get_text() == "Each expectation's number here (95% interval)"
    drawn = sorted((float(line.get_xdata()[0]), int(line.get_ydata()[0])) for line in fig.axes[0].lines
                   if line.get_marker() == "|" and line.get_color() == "0.35")  # each row's edges, its height
    assert drawn == [(0.971, 1), (1.0, 0), (1.03, 1)]


def test_the_report_opens_on_each_study_s_main_numbers_with_their_intervals_and_verdicts():
    """A reader's first screen was four paragraphs of advice: the numbers came after them, in a tally."""
    from jaxpitfalls.contract.verdicts import Estimate
    from jaxpitfalls.report.scorecard.scorecard import brief_section

    main = _claim("slower", "reproduced") | {"picture": 0, "headline": Estimate(1.336, 1.274, 1.4, "x", "f / j")}
    second = _claim("where", "not reproduced") | {"picture": 1, "headline": Estimate(24.1, 16.6, 31.7, "%", "left")}
    unpictured = _claim("other", "reproduced") | {"headline": Estimate(2.0, 1.9, 2.1, "x", "o")}
    brief = brief_section({"dispatch": [second, unpictured, main], "tree_at": [_claim("e", "checked")]})
    assert brief.startswith("## In brief")
    said = "- **dispatch**: `slower` f / j 1.336x [1.274, 1.400]: yes; `where` left 24.1% [16.6, 31.7]: **no**\n"
    assert said in brief
    assert "tree_at" not in brief and "`other`" not in brief
