"""Assemble reports/report.md from every study's tables, its claims and figures, and the run summary."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from .. import results, studies
from ..plan import own_preparations, table_paths
from . import markdown
from .aggregate import processes_of, read_tables, run_summary, span_seconds, study_seconds

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


def build_report(
    study_names: list[str], config: dict[str, Any], benchmark_paths: list[str], out_md: str, out_summary: str
) -> str:
    summary = run_summary(benchmark_paths)
    results.write_csv(out_summary, summary)
    claims, sections, environments = {}, [], {}
    for name in study_names:
        report = studies.load(name, "report")
        tables = read_tables(table_paths(name))
        per_process = [report.claims(read_tables(table_paths(name), p)) for p in processes_of(tables)]
        claims[name] = judged_per_process(report.claims(tables), per_process)
        figures = sorted(p.stem for p in Path(f"reports/figures/{name}").glob("*.png"))
        description = inspect.getdoc(studies.load(name)) or ""
        sections.append(markdown.study_section(name, description, report, tables, config, figures))
        environments[name] = tables["environment"]
    parts = {name: (study_seconds(summary, name, own_preparations(config, name)),
                    config["studies"][name]["target_s"]) for name in study_names}
    quiet = {name: markdown.quietness_line(read_tables(table_paths(name))["checks"]) for name in study_names}
    text = markdown.render([
        markdown.scorecard_section(claims),
        markdown.run_summary_section(summary, span_seconds(summary), config["run_target_s"], parts, quiet),
        *sections,
        markdown.environment_section(environments),
    ])
    results.write_text(out_md, text)
    return text
