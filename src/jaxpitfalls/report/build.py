"""Assemble reports/report.md from every study's tables, its claims and figures, and the run summary."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .. import results, studies
from ..studies.interface import StudySpec
from . import markdown
from .aggregate import processes_of, read_tables
from .run_summary import run_summary, span_seconds, study_seconds

DECIDED = ("reproduced", "not reproduced")


def judged_per_process(pooled: list[dict[str, str]], per_process: list[list[dict[str, str]]]) -> list[dict[str, str]]:
    """Each claim as judged on every process's samples pooled, unless two worker processes' own samples
    reach opposite verdicts (one reproduced, another not): then it is `unstable`, never a yes or a no that
    another fresh process would have contradicted. A process that alone cannot tell (inconclusive, on a
    K-th of the samples) contradicts nothing; where the processes differ at all, each one's verdict is
    listed beside the measurement."""
    judged = []
    for claim in pooled:
        verdicts = [next(c["verdict"] for c in claims if c["claim"] == claim["claim"]) for claims in per_process]
        if len(set(verdicts)) > 1:
            listed = ", ".join(f"process {i}: {v}" for i, v in enumerate(verdicts))
            claim = claim | {"measured": f"{claim['measured']} (per process: {listed})"}
            if set(DECIDED) <= set(verdicts):
                claim |= {"verdict": "unstable"}
        judged.append(claim)
    return judged


def declared(spec: StudySpec, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The report's claim rows, keyed as the spec declares them, with the spec's text and write-up number;
    every declared claim exactly once (a claim a report forgot would otherwise vanish from the scorecard)."""
    keys = [row["claim"] for row in rows]
    if sorted(keys) != sorted(spec.claims):
        raise ValueError(f"study {spec.name}: report.claims() returned {keys}, the spec declares {list(spec.claims)}")
    for row in rows:
        wanted, given = len(spec.claims[row["claim"]].numbers), len(row.get("ours", ()))
        if given != wanted:
            raise ValueError(f"study {spec.name}: claim {row['claim']!r}: report.claims() measured {given} numbers, "
                             f"the spec's write-up gives {wanted}")
    return [row | {"claim": spec.claims[row["claim"]].text, "write_up": spec.claims[row["claim"]].write_up,
                   "numbers": spec.claims[row["claim"]].numbers} for row in rows]


def build_report(
    study_inputs: dict[str, dict[str, Any]], settings: dict[str, Any], benchmark_paths: list[str], out_md: str,
    out_summary: str,
) -> str:
    """The report from the files the rule declares: per study `tables` (name -> CSV path) and `figures` (a
    directory of PNGs); `settings` are the config keys the report shows (the run's targets, the studies'
    blocks, their model families' blocks, each study's own preparation jobs), so no other key reruns it."""
    summary = run_summary(benchmark_paths)
    results.write_csv(out_summary, summary)
    claims, sections, environments, quiet, parts = {}, [], {}, {}, {}
    for name, inputs in study_inputs.items():
        spec, report = studies.spec(name), studies.report(name)
        tables = read_tables(inputs["tables"])
        per_process = [report.claims(read_tables(inputs["tables"], p)) for p in processes_of(tables)]
        claims[name] = declared(spec, judged_per_process(report.claims(tables), per_process))
        figures = [(png.stem, os.path.relpath(png, Path(out_md).parent))
                   for png in sorted(Path(inputs["figures"]).glob("*.png"))]
        sections.append(markdown.study_section(name, studies.description(name), spec, report, tables, settings,
                                               figures))
        environments[name] = tables["environment"]
        quiet[name] = markdown.quietness_line(tables["checks"])
        parts[name] = (study_seconds(summary, name, settings["preparations"][name]),
                       settings["studies"][name]["target_s"])
    text = markdown.render([
        markdown.scorecard_section(claims),
        markdown.run_summary_section(summary, span_seconds(summary), settings, parts, quiet),
        *sections,
        markdown.environment_section(environments),
    ])
    results.write_text(out_md, text)
    return text
