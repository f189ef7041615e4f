"""The HTML report's landing page in reStructuredText: findings, tally and figure (as a data URI: Snakemake's
`embeddedfigure` leaves a path the single-file report cannot resolve)."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from .scorecard import findings, findings_intro, judged_nothing, only_expectations, tally

_RST_SPECIAL = re.compile(r"([\\`*_|])")
URI_LINE = 1000  # characters per line of the figure's data URI (docutils refuses lines over 10,000)


def _plain(text: str) -> str:
    """Text shown as written: reStructuredText's inline markup characters escaped."""
    return _RST_SPECIAL.sub(r"\\\1", text)


def landing_rst(claims: dict[str, list[dict[str, Any]]], figure: str | Path, warning: list[str] = ()) -> str:
    """`warning`: the report's lines above its findings (a busy machine), said here first too."""
    lines = ["What to do", "==========", "", *(_plain(w.replace("**", "")) for w in warning)]
    lines += [] if judged_nothing(claims) else [_plain(findings_intro(claims)), ""]
    lines += [f"- **{study}**: {_plain(text)}" for study, text in findings(claims).items()]
    score = tally(claims).replace("**", "")  # markdown's bold, which reStructuredText would show as asterisks
    png = "data:image/png;base64," + base64.b64encode(Path(figure).read_bytes()).decode()
    uri = [png[i:i + URI_LINE] for i in range(0, len(png), URI_LINE)]  # docutils joins them, refuses long lines
    said = "Your expectations" if only_expectations(claims) else "Reproduction scorecard"
    lines += ["", f"{said}: {_plain(score)}. Every claim with its rule and measurement is in "
                  "``reports/report.md`` (under Report).", "",
              f".. image:: {uri[0]}", *(f"   {part}" for part in uri[1:]), "   :width: 100%",
              "   :alt: each expectation's number (95% interval), a panel per unit" if only_expectations(claims) else
              "   :alt: each claim's number here (95% interval) beside the write-up's, a panel per unit", ""]
    return "\n".join(lines)
