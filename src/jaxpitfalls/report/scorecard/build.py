"""Assemble reports/report.md."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from ... import registry, results
from ...contract.decisions import applicable
from ...contract.interface import Claim, StudySpec
from ...contract.verdicts import CHECKED, NOT_MEASURED, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, UNSTABLE, Judged
from ..tables.aggregate import processes_of, read_tables, without_twins
from ..tables.run_summary import span_seconds, study_seconds, study_split
from . import audit, markdown, scorecard
from .audit import twin_rows, twin_sections, twin_warning
from .magnitude import device_here

DECIDED = (REPRODUCED, NOT_REPRODUCED)
VERDICT_WORD = {REPRODUCED: "yes", NOT_REPRODUCED: "no"}  # each process's verdict, as the scorecard says it
APPLIED = ("reason", "bound", "absent_here")  # what contract.decisions.applicable folds into a row's verdict and words


def judged_per_process(pooled: list[dict[str, str]], per_process: list[list[dict[str, str]]]) -> list[dict[str, str]]:
    """Each claim over the job's processes; `unstable` where processes reach opposite verdicts, each listed."""
    judged = []
    for claim in pooled:
        verdicts = [next(c["verdict"] for c in claims if c["claim"] == claim["claim"]) for claims in per_process]
        if len(set(verdicts)) > 1:
            listed = ", ".join(VERDICT_WORD.get(v, v) for v in verdicts)
            claim = claim | {"measured": f"{claim['measured']} (judged in each process alone: {listed})"}
            if set(DECIDED) <= set(verdicts):
                claim |= {"verdict": UNSTABLE}
        judged.append(claim)
    return judged


def judged_rows(study: str, judged: list[Judged]) -> list[dict[str, Any]]:
    """A study's judged claims as report rows; anything but `Judged` is refused."""
    wrong = [type(j).__name__ for j in judged if not isinstance(j, Judged)]
    if wrong:
        raise TypeError(f"study {study}: its claims must be contract.verdicts.Judged rows, got {wrong}")
    return [_row(applicable(j)) for j in judged]


def _row(judged: Judged) -> dict[str, Any]:
    """A judged claim as the report's row; a not testable one keeps its bound's `ceiling`."""
    row = {k: v for k, v in asdict(judged).items() if k not in APPLIED}
    testable = judged.verdict != NOT_TESTABLE or judged.bound is None
    return row | {"headline": judged.headline, "ceiling": None if testable else judged.bound.ratio}


def study_claims(name: str, table_paths: dict[str, str], pooled: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    """A study's scorecard rows judged on its pooled tables, then on each worker process's own rows."""
    judges = registry.judges(name)
    per_process = [judged_rows(name, judges.judge(read_tables(table_paths, p))) for p in processes_of(pooled)]
    judged = judged_rows(name, judges.judge(pooled))
    return declared(registry.spec(name), judged_per_process(judged, per_process), registry.report(name).FINDINGS)


def _unjudged(claim: Claim) -> dict[str, Any]:
    """The row of a claim no report judges, with the reason."""
    if claim.checked:
        return {"measured": f"checked in every job: {claim.checked}", "verdict": CHECKED}
    return {"measured": f"not measured: {claim.not_measured}", "verdict": NOT_MEASURED}


def declared(spec: StudySpec, rows: list[dict[str, Any]], findings: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The claim rows in the spec's order: every judged claim exactly once (else refused, lest it vanish);
    `picture`: its place in FINDINGS."""
    unknown = [k for k in findings if k not in spec.claims or spec.claims[k].advice is None]
    if unknown:
        raise ValueError(f"study {spec.name}: FINDINGS {unknown} are not claims with advice")
    judged = [key for key, claim in spec.claims.items() if claim.judged]
    keys = [row["claim"] for row in rows]
    if sorted(keys) != sorted(judged):
        raise ValueError(f"study {spec.name}: its claims module judged {keys}, the spec declares {judged} judged")
    by_key = {row["claim"]: row for row in rows}
    for key, row in by_key.items():
        wanted, given = len(spec.claims[key].numbers), len(row.get("ours", ()))
        if given != wanted:
            raise ValueError(f"study {spec.name}: claim {key!r}: its judge measured {given} numbers, "
                             f"the spec's write-up gives {wanted}")
    return [{"ours": (None,) * len(claim.numbers), "headline": None, "ceiling": None}
            | by_key.get(key, _unjudged(claim))
            | {"key": key, "claim": claim.text, "write_up": claim.write_up, "numbers": claim.numbers,
               "rule": claim.stated_rule, "advice": claim.advice, "beyond": claim.beyond,
               "expected": claim.expected, "restates": claim.restates,
               "picture": findings.index(key) if key in findings else None}
            for key, claim in spec.claims.items()]


def busy_warning(checks: dict[str, pd.DataFrame]) -> list[str]:
    """Above every verdict: studies whose rounds were kept on a busy machine (`on_contention: warn`), which only the
    audit said."""
    kept = {name: (int(c.rounds_contended_kept.sum()), int(c.rounds_kept.sum())) for name, c in checks.items()
            if "rounds_contended_kept" in c and c.rounds_contended_kept.sum() > 0}
    if not kept:
        return []
    said = "; ".join(f"`{name}` {busy} of {rounds}" for name, (busy, rounds) in kept.items())
    return [f"**Timed beside a busy machine: read its numbers as rough ones.** Rounds kept although other processes "
            f"or the hypervisor used more than `measure.max_busy_share` of the cores (`on_contention: warn`): {said}. "
            "A neighbour slows variants unevenly, so ratios and verdicts can move; rerun on a quiet machine (the "
            "default, `on_contention: retry`, waits for one) before acting on them. Per configuration: the audit's "
            "\"Machine while timing\".", ""]


def one_process_warning(checks: dict[str, pd.DataFrame]) -> list[str]:
    """Above every verdict: studies with a configuration timed in one process (docs/measurement.md)."""
    alone = [name for name, c in checks.items() if "processes" in c and (c.processes == 1).any()]
    if not alone:
        return []
    return [f"**Timed in one process: {', '.join(f'`{name}`' for name in alone)}.** Intervals there are over rounds "
            "within one fresh process and leave out how processes differ, often the larger part: another run can "
            "move those verdicts. `measure.processes: 3` or more measures that spread.", ""]


def build_report(
    study_inputs: dict[str, dict[str, Any]], settings: dict[str, Any], summary: pd.DataFrame, out_md: str,
    out_figure: str, out_landing: str | None = None, judged: dict[str, list[dict[str, Any]]] | None = None,
) -> str:
    """The report from its tables alone, so a snapshot renders again from what it keeps; `judged`: claims judged
    already, else judged here."""
    from ...contract.figures import save
    from .claims_figure import claim_points, claims_figure
    from .landing import landing_rst

    claims, sections, audits, environments, checks, parts, twins = {}, [], [], {}, {}, {}, {}
    for name, inputs in study_inputs.items():
        spec, report = registry.spec(name), registry.report(name)
        found = read_tables(inputs["tables"], twins=True)
        tables = without_twins(found)
        if judged is None:
            claims[name] = study_claims(name, inputs["tables"], tables)
        figures = [(png.stem, os.path.relpath(png, Path(out_md).parent))
                   for png in sorted(Path(inputs["figures"]).glob("*.png"))]
        sections.append(markdown.study_section(name, registry.description(name), spec, report, tables, settings,
                                               figures))
        audits.append(markdown.audit_section(name, tables["checks"]))
        twins[name] = twin_rows(found["comparisons"])
        environments[name] = tables["environment"]
        checks[name] = tables["checks"]
        parts[name] = (study_seconds(summary, name, settings["preparations"][name]),
                       settings["studies"][name]["target_s"],
                       study_split(summary, name, settings["preparations"][name], tables["checks"]))
    claims = claims if judged is None else judged
    save(claims_figure(claim_points(claims)), out_figure)
    title = "JAX benchmarks: report" if scorecard.only_expectations(claims) else markdown.TITLE
    busy = busy_warning(checks) + one_process_warning(checks) + twin_warning(twins)
    text = markdown.render([
        *busy,
        scorecard.brief_section(claims),
        scorecard.findings_section(claims),
        scorecard.scorecard_section(claims, os.path.relpath(out_figure, Path(out_md).parent)),
        scorecard.judging_section(claims, {name: device_here(environments[name]) if name in environments else
                                           "this machine" for name in claims}),
        *sections,
        scorecard.rules_section(claims),
        "## Audit\n",
        audit.run_summary_section(summary, span_seconds(summary), settings, parts, checks),
        *twin_sections(twins),
        *audits,
        markdown.environment_section(environments),
    ], title)
    if out_landing:
        results.write_text(out_landing, landing_rst(claims, out_figure, busy))
    results.write_text(out_md, text)
    return text
