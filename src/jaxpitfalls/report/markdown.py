"""The markdown report: scorecard first, then per study its setup, results, breakdown, checks, figures."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pandas as pd

from .aggregate import base_config_id

VERDICT_MARK = {"reproduced": "yes", "not reproduced": "**no**", "inconclusive": "inconclusive"}


def _table(df: pd.DataFrame, floatfmt: str = ".3f") -> str:
    return df.to_markdown(index=False, floatfmt=floatfmt) if len(df) else "_(no rows)_"


def interval(value: float, low: float, high: float, unit: str = "") -> str:
    """`1.234x [1.100, 1.300]`: a value and its 95% interval, as every table and claim shows them."""
    return f"{value:.3f}{unit} [{low:.3f}, {high:.3f}]"


def _with_interval(df: pd.DataFrame, value: str, low: str, high: str, unit: str = "") -> pd.Series:
    return df.apply(lambda r: interval(r[value], r[low], r[high], unit), axis=1)


def _leaves(steps: pd.DataFrame) -> pd.DataFrame:
    per_call = steps.drop_duplicates(["config_id", "variant"]).assign(
        leaves=lambda d: d.leaves_in.astype(str) + " / " + d.leaves_out.astype(str))
    table = per_call.pivot_table(index="config_id", columns="variant", values="leaves", aggfunc="first", sort=False)
    model = per_call.drop_duplicates("config_id").set_index("config_id")
    columns = {"structure_model_leaves": "model leaves", "structure_array_leaves": "of them arrays",
               "structure_parameters": "parameters"}
    columns = {k: v for k, v in columns.items() if k in model}  # studies that record the model's structure
    return model[list(columns)].rename(columns=columns).join(table).reset_index()


def run_summary_section(summary: pd.DataFrame, span_s: float | None, target_s: float | None) -> str:
    per_rule = summary.groupby("rule").agg(jobs=("seconds", "size"), seconds=("seconds", "sum"),
                                           slowest_s=("seconds", "max")).reset_index()
    lines = ["## Run summary", ""]
    if span_s is not None:
        verdict = "" if target_s is None else (
            f" (target {target_s:.0f} s: {'met' if span_s <= target_s else '**missed**'})")
        lines.append(f"Measured wall time of the jobs, first start to last end: **{span_s:.0f} s**{verdict}; "
                     f"sum of all job times {summary.seconds.sum():.0f} s over {len(summary)} jobs "
                     "(from Snakemake's `benchmark:` files; the report's own jobs are not included).")
        lines.append("")
    lines += [_table(per_rule, ".1f"), ""]
    return "\n".join(lines)


def scorecard_section(claims: dict[str, list[dict[str, str]]]) -> str:
    rows = [{"study": s, "claim": c["claim"], "write-up": c["write_up"], "measured here": c["measured"],
             "reproduced": VERDICT_MARK[c["verdict"]], "rule": c["rule"]}
            for s, cs in claims.items() for c in cs]
    return "\n".join(["## Reproduction scorecard", "",
                      "Each claim of the source write-ups, what this run measured, and whether it holds here "
                      "(by the stated rule). Write-up numbers come from other hardware and sizes: the effect "
                      "and its direction are what reproduce, not the magnitude.", "",
                      _table(pd.DataFrame(rows)), ""])


def study_section(name: str, description: str, report: ModuleType, tables: dict[str, pd.DataFrame],
                  config: dict[str, Any],
                  figures: list[str]) -> str:
    steps, comp, overhead, checks = (tables[k] for k in ("steps", "comparisons", "overhead", "checks"))
    medians = steps.pivot_table(index="config_id", columns=["mode", "variant"], values="median_ms",
                                sort=False)
    medians.columns = [f"{v} ({m})" for m, v in medians.columns]
    comparisons = comp.assign(
        ratio=_with_interval(comp, "ratio", "ratio_ci_low", "ratio_ci_high", "x"),
        difference=_with_interval(comp, "diff_ms", "diff_ci_low_ms", "diff_ci_high_ms", " ms"),
    )[["config_id", "mode", "variant", "baseline", "ratio", "difference"]]
    base_id = base_config_id(checks)
    base = overhead[overhead.config_id == base_id]
    breakdown = base.pivot_table(index="component", columns="variant", values="share", sort=False)
    estimate = base.pivot_table(index="component", columns="variant", values="untraced_estimate_ms", sort=False)
    breakdown_text = breakdown.map(lambda v: f"{v:.1%}") + estimate.map(lambda v: f" ({v:.3f} ms)")
    described = {c.name: c.description for c in report.TRACE_COMPONENTS} | {"rest": "everything else in the step"}
    breakdown_text.insert(0, "what", [described.get(c, "") for c in breakdown_text.index])
    study_cfg = config["studies"][name]
    lines = [
        f"## Study `{name}`", "", description, "",
        "### Setup", "",
        f"Base configuration `{json.dumps(study_cfg['base'])}`; sweeps (one axis at a time) "
        f"`{json.dumps(study_cfg.get('sweep', {}))}`; measurement `{json.dumps(study_cfg['measure'])}`. "
        f"Model family `{study_cfg['model_family']}`: `{json.dumps(config['models'][study_cfg['model_family']])}`. "
        "Variants run interleaved in one job per configuration, after a warmup with the timed shapes; "
        "`blocked` waits for every step, `pipelined` dispatches several steps and waits once.", "",
        "### Pytree leaves per call (in / out)", "",
        "What each variant's call hands to and gets back from JAX, per configuration: the Python-side work "
        "the write-up blames scales with these.", "",
        _table(_leaves(steps)), "",
        "### Median step time (ms)", "", medians.reset_index().to_markdown(index=False, floatfmt=".3f"), "",
        "### Ratios and differences (median of paired samples, bootstrap 95% interval)", "",
        _table(comparisons), "",
        f"### Overhead breakdown (traced, configuration `{base_id}`)", "",
        "Share of the traced step per component (innermost match wins, so the shares add up to the step); "
        "in brackets the share applied to the untraced blocked step time, which corrects for the tracer's "
        "inflation of Python time. Per-configuration tables: `results/tables/"
        f"{name}/overhead.csv`.", "",
        breakdown_text.reset_index().to_markdown(index=False), "",
        "### Validity checks", "",
        _table(checks[["config_id", "outputs_agree", "outputs_exact", "max_abs_difference",
                       "distinct_signatures", "compiles_in_warmup", "compiles_in_timed_region",
                       "job_seconds", "host_peak_mb", "device_peak_mb"]], ".3g"), "",
        "### Figures", "",
    ]
    for fig in figures:
        caption = report.FIGURES.get(fig, fig)
        lines += [f"![{caption}](figures/{name}/{fig}.png)", "", f"*{caption}*", ""]
    return "\n".join(lines)


def environment_section(env: pd.DataFrame) -> str:
    row = env.iloc[0].to_dict()
    table = pd.DataFrame({"key": list(row), "value": [str(v) for v in row.values()]})
    return "\n".join(["## Environment", "", _table(table), ""])


def render(sections: list[str], title: str = "JAX performance pitfalls: reproduction report") -> str:
    return "\n".join([f"# {title}", "", *sections])
