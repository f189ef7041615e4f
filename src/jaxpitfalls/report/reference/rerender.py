"""A published snapshot's claims rendered again by this checkout's rules, from the tables it keeps: its report's
findings, scorecard, "How each claim was judged" and rules, and its scorecard figure. A change that only judges or
words differently is published this way, in seconds, instead of by timing a new run; the study sections, the
audit and the figures of the study tables stay as the run wrote them.

A study the run did not time (the GPU lease ran three of four) keeps its place: every one of its claims is listed,
not measured, saying so, so that a snapshot carries every claim the workflow judges.

    jaxpitfalls reference rejudge SNAPSHOT --write
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ... import registry
from ...contract.verdicts import NOT_MEASURED
from ...harness.environment import git_state
from ..scorecard import scorecard
from ..scorecard.build import declared, study_claims
from ..scorecard.magnitude import device_here
from ..tables.aggregate import read_tables
from .reference import sha256, table_paths

NOT_RUN = "not measured: this run did not time the study"
FIGURE = "scorecard.png"
MANIFEST = "manifest.json"


def _not_run(name: str) -> list[dict[str, Any]]:
    """Every claim of a study the run did not time, not measured, with why."""
    spec = registry.spec(name)
    rows = [{"claim": key, "measured": NOT_RUN, "verdict": NOT_MEASURED, "ours": (None,) * len(claim.numbers),
             "headline": None, "ceiling": None} for key, claim in spec.claims.items() if claim.judged]
    return declared(spec, rows, registry.report(name).FINDINGS)


def snapshot_claims(snapshot: Path) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """Every study's claims judged now on the snapshot's tables (a study it kept none of: not run), and each
    study's device as the write-up's numbers name it."""
    claims, here = {}, {}
    for name in registry.names():
        paths = table_paths(snapshot, name)
        if not Path(paths["steps"]).exists():
            claims[name], here[name] = _not_run(name), "this machine"
            continue
        tables = read_tables(paths)
        claims[name] = study_claims(name, paths, tables)
        here[name] = device_here(tables["environment"])
    return claims, here


def _between(text: str, start: str, end: str) -> tuple[str, str]:
    """The text before `start` and from `end` on (`end` searched after `start`)."""
    head, _, rest = text.partition(start)
    return head, rest[rest.index(end):] if end in rest else ""


def rerendered(report_md: str, claims: dict[str, list[dict[str, Any]]], here: dict[str, str]) -> str:
    """The report with its claims sections (findings, scorecard, how judged, before the first study's section;
    the rules, before the audit) written by this checkout."""
    head, studies = _between(report_md, "## What to do", "\n## Study `")
    if not studies:
        raise ValueError("the report has no '## What to do' section followed by a study's: not a report this "
                         "workflow wrote")
    claims_part = "\n".join([scorecard.findings_section(claims), scorecard.scorecard_section(claims, FIGURE),
                             scorecard.judging_section(claims, here)])
    body, audit = studies.split("\n## Audit", 1)
    body = body.split("\n## The rules", 1)[0]
    return f"{head}{claims_part}{body.rstrip()}\n\n{scorecard.rules_section(claims)}\n## Audit{audit}"


def rerender(snapshot: str | Path) -> dict[str, Any]:
    """Write the snapshot's claims sections and figure again by this checkout's rules, recorded in its manifest
    (record_rejudged). Returns the claims."""
    from ...contract.figures import save
    from ..scorecard.claims_figure import claim_points, claims_figure

    snapshot = Path(snapshot)
    claims, here = snapshot_claims(snapshot)
    report = snapshot / "report.md"
    report.write_text(rerendered(report.read_text(), claims, here))
    save(claims_figure(claim_points(claims)), str(snapshot / FIGURE))
    record_rejudged(snapshot, ["report.md", FIGURE])
    return claims


def record_rejudged(snapshot: Path, files: list[str]) -> None:
    """Where the snapshot has a manifest (report/reference/reference.py), record which of its files were written
    again, at which commit, with their new sha256s, kept with what changed before (a table estimated again)."""
    manifest = snapshot / MANIFEST
    if manifest.exists() and files:
        found = json.loads(manifest.read_text())
        before = found.get("rejudged", {})
        found["rejudged"] = before | {"commit": (git_state()["commit"] or "unknown")[:10], "files": before.get(
            "files", {}) | {f: sha256(snapshot / f) for f in files}}
        manifest.write_text(json.dumps(found, indent=1) + "\n")
