"""The HTML report's landing page: the markdown report's findings as reStructuredText, shown as written."""

from __future__ import annotations

import base64

from docutils.core import publish_parts

from jaxpitfalls.contract.interface import Advice
from jaxpitfalls.report.landing import landing_rst
from jaxpitfalls.report.scorecard import findings_section

CLAIMS = {
    "dispatch": [
        {"verdict": "reproduced", "advice": Advice("Pass *args flat to jax.jit; filter_jit_ costs `leaves`."),
         "beyond": False},
        {"verdict": "inconclusive", "advice": Advice("never shown", "", "Measure at your sizes."), "beyond": False},
        {"verdict": "not measured", "advice": None, "beyond": False},
        {"verdict": "not reproduced", "advice": None, "beyond": True},  # ours, beside the write-up's
    ],
    "tree_at": [{"verdict": "checked", "advice": None, "beyond": False}],
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
    score = html[html.index("4 claims of the source write-ups: "):]
    assert all(f"1 {verdict}" in score[:200] for verdict in ("yes", "inconclusive", "not measured", "checked"))
    assert score.startswith("4 claims of the source write-ups: 1 yes, 1 inconclusive, 1 not measured, 1 checked; "
                            "1 beyond them: 1 no.")  # ours counted apart from the write-ups' claims
    assert "never shown" not in html and "problematic" not in html  # docutils marks markup errors so


def test_a_scorecard_cell_ends_at_a_clause_never_inside_a_bracket():
    from jaxpitfalls.report.scorecard import scorecard_section

    measured = "5.9x [5.8, 6.0] at 24 (30 ms -> 5 ms; 24 transforms); 10.8x at 48"
    rows = {"tree_at": [{"claim": "c", "write_up": "7.6x", "measured": measured, "verdict": "reproduced",
                         "beyond": False}]}
    assert "| 5.9x [5.8, 6.0] at 24 (30 ms -> 5 ms; 24 transforms) |" in scorecard_section(rows)


def test_the_findings_tell_the_picture_the_study_names_in_its_order_whatever_was_decided():
    rows = [{"verdict": v, "advice": Advice(f"{key} held.", f"{key} failed.", f"{key} undecided."), "beyond": False,
             "picture": picture, "key": key}
            for key, v, picture in (("gain", "reproduced", 0), ("noise", "reproduced", None),
                                    ("limit", "inconclusive", 2), ("cost", "not reproduced", 1))]
    assert findings_section({"tree_at": rows}).endswith("- **tree_at**: gain held. cost failed. limit undecided.\n")


def test_a_claim_restating_another_s_measurement_is_counted_once_and_drawn_once():
    """2026-11-27-7: generation's distortion is 1 / slowed_cached's measurement, counted as two "yes" rows and
    drawn as two agreeing marks in scorecard.png."""
    from jaxpitfalls.contract.interface import Number
    from jaxpitfalls.report.build import ratio_points
    from jaxpitfalls.report.scorecard import scorecard_section, tally

    six = (Number(5.8, 5.8, "x", structural=True),)
    rows = {"generation": [
        {"key": "slowed", "claim": "slowed", "write_up": "5.8x", "measured": "6.4x", "verdict": "reproduced",
         "beyond": False, "numbers": six, "ours": ((6.4, 5.9, 7.0),)},
        {"key": "distortion", "claim": "off", "write_up": "0.15x", "measured": "0.16x", "verdict": "reproduced",
         "beyond": False, "numbers": six, "ours": ((6.4, 5.9, 7.0),), "restates": "slowed"}]}
    assert tally(rows) == ("2 claims of the source write-ups: 1 yes (distortion restates slowed: one measurement, "
                           "counted once)")
    assert "| yes (= slowed) |" in scorecard_section(rows)
    assert list(ratio_points(rows).label) == ["generation: slowed"]


def test_verdicts_judged_at_a_smaller_structure_are_counted_apart_from_the_rest():
    """The issue's "labelled and not counted as at the write-up's structure": the tally gives them apart, and the
    restating note once, not in every count."""
    from jaxpitfalls.report.scorecard import tally

    def claim(key, verdict, supporting=False, restates=None):
        return {"key": key, "claim": key, "verdict": verdict, "beyond": False, "supporting": supporting,
                "restates": restates}

    rows = {"dispatch": [claim("free", "inconclusive", True), claim("every", "reproduced", True),
                         claim("slower", "not testable")],
            "generation": [claim("slowed", "inconclusive"), claim("off", "inconclusive", restates="slowed")]}
    assert tally(rows) == ("5 claims of the source write-ups: 2 inconclusive, 1 yes, 1 not testable (off restates "
                           "slowed: one measurement, counted once); of them, 2 judged at a structure smaller than "
                           "the write-up's (supporting only: 1 inconclusive, 1 yes), the other 3 at it or untimed (1 "
                           "not testable, 1 inconclusive)")


def test_a_claim_restates_only_another_judged_claim_of_its_study():
    from dataclasses import replace

    import pytest

    from jaxpitfalls.contract import registry

    spec = registry.spec("generation")
    assert spec.claims["distortion"].restates == "slowed_cached"
    for wrong in ("no_such_claim", "distortion", "load_outside_timing"):  # unknown, itself, a checked claim
        claims = dict(spec.claims) | {"distortion": replace(spec.claims["distortion"], restates=wrong)}
        with pytest.raises(ValueError, match="restates"):
            replace(spec, claims=claims)
