"""A snapshot's report rendered again, whole, from what it keeps, so that it never holds two estimates of one
quantity (docs/decisions.md#a-snapshot-rendered-whole-from-its-tables). A moved verdict must give a reason, kept in
the manifest; a study not timed lists its claims as not measured.

    jaxpitfalls reference rejudge SNAPSHOT --write [--why "..."]
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from ... import registry
from ...contract.figures import save
from ...contract.verdicts import NOT_MEASURED
from ...harness.environment import git_state
from ...report.scorecard.build import build_report, declared, study_claims
from ...report.scorecard.magnitude import device_here
from ...report.tables.aggregate import read_tables
from .reference import SETTINGS, sha256, table_paths
from .scorecard_read import verdict_keys

NOT_RUN = "not measured: this run did not time the study"
FIGURE = "scorecard.png"
MANIFEST = "manifest.json"


class MovedUnsaid(ValueError):
    """A verdict moved since the run and no reason for rendering again was given."""


def _not_run(name: str) -> list[dict[str, Any]]:
    spec = registry.spec(name)
    rows = [{"claim": key, "measured": NOT_RUN, "verdict": NOT_MEASURED, "ours": (None,) * len(claim.numbers),
             "headline": None, "ceiling": None} for key, claim in spec.claims.items() if claim.judged]
    return declared(spec, rows, registry.report(name).FINDINGS)


def kept_studies(snapshot: Path) -> list[str]:
    """The studies whose tables the snapshot keeps, in the run's order (its settings'), else the registry's."""
    order = list(json.loads((snapshot / SETTINGS).read_text())["studies"]) if (snapshot / SETTINGS).exists() else []
    return [name for name in dict.fromkeys([*order, *registry.names()])
            if Path(table_paths(snapshot, name)["steps"]).exists()]


def snapshot_claims(snapshot: Path) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """Every study's claims judged now on the snapshot's tables (untimed: not run), and each study's device as the
    write-up names it."""
    claims, here, kept = {}, {}, kept_studies(snapshot)
    for name in dict.fromkeys([*kept, *registry.names()]):
        if name not in kept:
            claims[name], here[name] = _not_run(name), "this machine"
            continue
        paths = table_paths(snapshot, name)
        tables = read_tables(paths)
        claims[name] = study_claims(name, paths, tables)
        here[name] = device_here(tables["environment"])
    return claims, here


def as_run(snapshot: Path, manifest: dict[str, Any]) -> dict[str, str]:
    """The run's own verdicts: the manifest's, else its report's while that is still the run's own file."""
    if "as_run" in manifest:
        return manifest["as_run"]
    report = snapshot / "report.md"
    if sha256(report) != manifest["files"]["report.md"]["sha256"]:
        raise MovedUnsaid(f"{snapshot}: its report was written again and its manifest keeps no `as_run` verdicts: "
                          "add them from the run's report (git history) before rendering it again")
    return verdict_keys(report.read_text())


def moved(claims: dict[str, list[dict[str, Any]]], was: dict[str, str], said: dict[str, dict[str, str]],
          why: str | None) -> dict[str, dict[str, str]]:
    """`study.claim key` -> {was, now, why} for each verdict moved from the run's own, its reason `said` or `why`; a
    move without one is refused."""
    now = {f"{s}.{c['key']}": c["verdict"] for s, cs in claims.items() for c in cs if c["measured"] != NOT_RUN}
    changed = {key: verdict for key, verdict in now.items() if was.get(key, verdict) != verdict}
    unsaid = [key for key, verdict in changed.items() if said.get(key, {}).get("now") != verdict]
    if unsaid and not why:
        raise MovedUnsaid(f"verdicts moved since the run ({', '.join(unsaid)}): say why with --why")
    return {key: {"was": was[key], "now": verdict, "why": why if key in unsaid else said[key]["why"]}
            for key, verdict in changed.items()}


def _figures(snapshot: Path, study: str, tables: dict[str, pd.DataFrame]) -> list[str]:
    """The study's figures drawn again from its tables into figures/<study>/ (the old ones removed first)."""
    out = snapshot / "figures" / study
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    for name, fig in registry.report(study).figures(tables).items():
        save(fig, str(out / f"{name}.png"))
    return [p.relative_to(snapshot).as_posix() for p in sorted(out.glob("*.png"))]


def render(snapshot: str | Path, why: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Render every figure, report.md and the scorecard again, recording verdicts, reason and files in the manifest;
    returns the claims."""
    snapshot = Path(snapshot)
    if not (snapshot / SETTINGS).exists():
        raise FileNotFoundError(f"{snapshot} keeps no {SETTINGS} (the report's settings, plan.report_settings): "
                                "it cannot be rendered again from what it keeps")
    manifest = json.loads((snapshot / MANIFEST).read_text())
    was = as_run(snapshot, manifest)
    settings = json.loads((snapshot / SETTINGS).read_text())
    kept = kept_studies(snapshot)
    claims, _ = snapshot_claims(snapshot)
    shifted = moved(claims, was, manifest.get("moved", {}), why)
    claims = {s: [c | ({"moved": shifted[f"{s}.{c['key']}"]} if f"{s}.{c['key']}" in shifted else {}) for c in cs]
              for s, cs in claims.items()}
    drawn_before = {p.relative_to(snapshot).as_posix() for p in (snapshot / "figures").rglob("*.png")}
    figures = [f for study in kept for f in _figures(snapshot, study, read_tables(table_paths(snapshot, study)))]
    inputs = {study: {"tables": table_paths(snapshot, study), "figures": str(snapshot / "figures" / study)}
              for study in kept}
    with tempfile.TemporaryDirectory() as tmp:
        build_report(inputs, settings, pd.read_csv(snapshot / "run_summary.csv"), str(snapshot / "report.md"),
                     str(snapshot / FIGURE), f"{tmp}/findings.rst", claims)
    before = manifest.get("rejudged", {})
    for stale in drawn_before - set(figures):  # a study without tables has no section to show them
        (snapshot / stale).unlink()
    removed = sorted((set(before.get("removed", [])) | drawn_before) - set(figures))
    manifest |= {"as_run": was, "moved": shifted, "rejudged": before | ({"removed": removed} if removed else {})}
    (snapshot / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    record_rejudged(snapshot, ["report.md", FIGURE, *figures])
    return claims


def record_rejudged(snapshot: Path, files: list[str]) -> None:
    """Record in the manifest, if any, the files written again, the commit, and their new sha256s."""
    manifest = snapshot / MANIFEST
    if manifest.exists() and files:
        found = json.loads(manifest.read_text())
        before = found.get("rejudged", {})
        found["rejudged"] = before | {"commit": (git_state()["commit"] or "unknown")[:10], "files": before.get(
            "files", {}) | {f: sha256(snapshot / f) for f in files}}
        manifest.write_text(json.dumps(found, indent=1) + "\n")
