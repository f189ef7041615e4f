"""The HTML report's landing page (`snakemake --report`): the findings and the scorecard's tally as
reStructuredText, written by render_report beside reports/report.md and included by the workflow's
description (workflow/report/workflow.rst), so the HTML report opens on what to do, not on the job graph."""

from __future__ import annotations

import re
from typing import Any

from .markdown import FINDINGS_INTRO, findings, tally

_RST_SPECIAL = re.compile(r"([\\`*_|])")


def _plain(text: str) -> str:
    """Text shown as written: reStructuredText's inline markup characters escaped."""
    return _RST_SPECIAL.sub(r"\\\1", text)


def landing_rst(claims: dict[str, list[dict[str, Any]]]) -> str:
    lines = ["What to do", "==========", "", _plain(FINDINGS_INTRO), ""]
    lines += [f"- **{study}**: {_plain(text)}" for study, text in findings(claims).items()]
    score = tally(claims).replace("**no**", "no")
    lines += ["", f"Reproduction scorecard: {_plain(score)}. Every claim with its rule and measurement is in "
                  "``reports/report.md`` (under Report).", ""]
    return "\n".join(lines)
