"""The HTML report's landing page: the markdown report's findings as reStructuredText, shown as written."""

from __future__ import annotations

import base64

from docutils.core import publish_parts

from jaxpitfalls.report.landing import landing_rst
from jaxpitfalls.report.markdown import findings_section
from jaxpitfalls.studies.interface import Advice

CLAIMS = {
    "dispatch": [
        {"verdict": "reproduced", "advice": Advice("Pass *args flat to jax.jit; filter_jit_ costs `leaves`.")},
        {"verdict": "inconclusive", "advice": Advice("never shown", "", "Measure at your sizes.")},
        {"verdict": "not measured", "advice": None},
    ],
    "tree_at": [{"verdict": "checked", "advice": None}],
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
    assert "never shown" not in html and "problematic" not in html  # docutils marks markup errors so
