"""A published report's verdicts read off its scorecard table: what rejudging compares with, and the run's own
verdicts a snapshot records."""

from __future__ import annotations

from ... import registry
from ...report.scorecard.scorecard import MOVED, RESTATED, VERDICT_MARK

VERDICT_OF_MARK = {mark: verdict for verdict, mark in VERDICT_MARK.items()}


class UnreadableSnapshot(ValueError):
    """A snapshot whose scorecard this checkout cannot read (an older report's layout)."""


def published_verdicts(report_md: str) -> dict[tuple[str, str], str]:
    """(study, claim text) -> verdict, from the scorecard's first two and last columns."""
    if "## Reproduction scorecard" not in report_md:
        raise UnreadableSnapshot("its report has no '## Reproduction scorecard' section")
    section = report_md.split("## Reproduction scorecard", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|")]
    if not rows or rows[0][:2] != ["study", "claim"] or rows[0][-1] != "verdict":
        raise UnreadableSnapshot(f"its scorecard's columns are {rows[0] if rows else 'missing'}, not study, "
                                 "claim, ..., verdict")
    marks = {(cells[0], cells[1]): cells[-1].split(RESTATED)[0].split(MOVED)[0] for cells in rows[2:]}  # past the rule
    unknown = sorted(set(marks.values()) - set(VERDICT_OF_MARK))
    if unknown:
        raise UnreadableSnapshot(f"its scorecard has verdicts this checkout does not name: {unknown}")
    return {key: VERDICT_OF_MARK[mark] for key, mark in marks.items()}


def verdict_keys(report_md: str) -> dict[str, str]:
    """`study.claim key` -> verdict from a report's scorecard; claims since reworded are left out."""
    texts = {(name, claim.text): f"{name}.{key}" for name in registry.names()
             for key, claim in registry.spec(name).claims.items()}
    return {texts[found]: verdict for found, verdict in published_verdicts(report_md).items() if found in texts}
