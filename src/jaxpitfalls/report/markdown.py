"""The markdown report: scorecard first, then per study its setup, results, breakdown, checks, figures."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from ..studies.interface import Report, StudySpec
from .aggregate import base_config_id, measured
from .magnitude import RULE as MAGNITUDE_RULE
from .magnitude import magnitude

VERDICT_MARK = {"reproduced": "yes", "not reproduced": "**no**", "inconclusive": "inconclusive",
                "unstable": "unstable"}


def verdict(ok: bool | None) -> str:
    """A claim's verdict from its rule's outcome: held, failed, or could not be decided (None)."""
    return {True: "reproduced", False: "not reproduced", None: "inconclusive"}[ok]


def above(low: float, high: float, threshold: float) -> bool | None:
    """Whether an interval lies wholly above a threshold (True), wholly below it (False), or straddles it:
    the rule's middle band, where the run cannot tell (None, inconclusive)."""
    if low > threshold:
        return True
    return False if high < threshold else None


def opposite(outcome: bool | None) -> bool | None:
    """A rule's outcome turned around, for claims that hold on the other side of the threshold or outside
    the band (e.g. "below 1.05"); the band where the run cannot tell stays None."""
    return None if outcome is None else not outcome


def within(low: float, high: float, lower: float, upper: float) -> bool | None:
    """Whether an interval lies inside a band (True), wholly outside it (False), or across an edge (None)."""
    if lower <= low and high <= upper:
        return True
    return False if high < lower or low > upper else None


def table(df: pd.DataFrame, floatfmt: str = ".3f") -> str:
    return df.to_markdown(index=False, floatfmt=floatfmt) if len(df) else "_(no rows)_"


def interval(value: float, low: float, high: float, unit: str = "") -> str:
    """`1.234x [1.100, 1.300]`: a value and its 95% interval, as every table and claim shows them."""
    return f"{value:.3f}{unit} [{low:.3f}, {high:.3f}]"


def _with_interval(df: pd.DataFrame, value: str, low: str, high: str, unit: str = "") -> pd.Series:
    return df.apply(lambda r: interval(r[value], r[low], r[high], unit), axis=1)


def _against(seconds: float, target_s: float | None) -> str:
    return "" if not target_s else f" (target {target_s:.0f} s: {'met' if seconds <= target_s else '**missed**'})"


def _memory_against(gib: float, target_gib: float) -> str:
    met = "met" if gib < target_gib else "**missed**"
    return "" if not target_gib else f" (target under {target_gib:g} GiB: {met})"


def quietness_line(checks: pd.DataFrame) -> str:
    """How quiet the machine was while a study was timed, from its checks table."""
    if not checks["machine_measurable"].all():
        return "machine activity not measurable here (no /proc/stat)"
    kept, retried, marked = (int(checks[k].sum()) for k in ("rounds_kept", "rounds_retried", "rounds_contended_kept"))
    contended = f"**{marked} kept although contended**" if marked else "none kept contended"
    return (f"{kept} rounds kept, {retried} re-timed (contended) after waiting {checks.waited_s.sum():.0f} s in all "
            f"for a quiet machine, {contended}; other processes up to {checks.others_share_max.max():.0%} of the "
            f"cores, steal (the hypervisor's) up to {checks.steal_share_max.max():.0%}, load average up to "
            f"{checks.load_average_max.max():.2f}")


def run_summary_section(summary: pd.DataFrame, span: tuple[float | None, int], targets: dict[str, Any],
                        parts: dict[str, tuple[float, float | None]], quiet: dict[str, str]) -> str:
    """Wall time of the run and of each study's part, and the largest job's peak memory, against their
    targets (`targets`: run_target_s, memory_target_gib), time per rule, and how quiet the machine was while
    each study was timed."""
    target_s = targets["run_target_s"]
    per_rule = summary.groupby("rule").agg(jobs=("seconds", "size"), seconds=("seconds", "sum"),
                                           slowest_s=("seconds", "max"), peak_rss_mb=("max_rss_mb", "max")
                                           ).reset_index()
    span_s, older = span
    lines = ["## Run summary", ""]
    if span_s is not None:
        whole = (f"; {older} of the {len(summary)} jobs are from earlier invocations (a partial rerun: the whole "
                 "run's time is not measured here)") if older else f"{_against(span_s, target_s)}"
        lines += [f"Measured wall time of the jobs of the latest invocation, first start to last end: "
                  f"**{span_s:.0f} s**{whole}. Sum of all job times {summary.seconds.sum():.0f} s over "
                  f"{len(summary)} jobs (from Snakemake's `benchmark:` files; the report's own jobs are not "
                  "included).", ""]
    if len(summary):
        peak = summary.loc[summary.max_rss_mb.idxmax()]
        lines += [f"Peak memory: **{peak.max_rss_mb / 1024:.1f} GiB** resident, the largest job "
                  f"(`{peak.rule}/{peak.job}`){_memory_against(peak.max_rss_mb / 1024, targets['memory_target_gib'])}; "
                  "(per job, from the benchmark files: jobs that ran side by side add up).", ""]
    for study, (seconds, study_target) in parts.items():
        lines.append(f"- study `{study}`: {seconds:.0f} s of jobs{_against(seconds, study_target)} "
                     "(its measuring jobs and the preparations only it needs)")
    lines += ["", "Machine while timing (a round is re-timed or marked when other processes or steal used more "
              "than `measure.max_busy_share` of the cores):", ""]
    lines += [f"- study `{study}`: {text}" for study, text in quiet.items()]
    lines += ["", table(per_rule, ".1f"), ""]
    return "\n".join(lines)


def scorecard_section(claims: dict[str, list[dict[str, Any]]]) -> str:
    rows = []
    for s, cs in claims.items():
        for c in cs:
            sizes = [magnitude(n, o) for n, o in zip(c["numbers"], c.get("ours", ()), strict=True)]
            rows.append({"study": s, "claim": c["claim"], "write-up": c["write_up"], "measured here": c["measured"],
                         "reproduced": VERDICT_MARK[c["verdict"]], "rule": c["rule"],
                         "write-up vs ours": "; ".join(n for n, _ in sizes),
                         "magnitude": "; ".join(v for _, v in sizes)})
    return "\n".join(["## Reproduction scorecard", "",
                      "Each claim of the source write-ups, what this run measured, and whether it holds here "
                      "(by the stated rule): `reproduced` judges the effect and its direction. `unstable`: the "
                      "fresh worker processes a configuration was timed in (`measure.processes`) reached "
                      "different verdicts (each is listed); another run could say either, so neither is "
                      "reported. Where the write-up gives a number, `write-up vs ours` puts the two side by side "
                      f"in one unit and `magnitude` judges the size: {MAGNITUDE_RULE}.", "",
                      table(pd.DataFrame(rows)), ""])


def study_section(name: str, description: str, spec: StudySpec, report: Report, tables: dict[str, pd.DataFrame],
                  config: dict[str, Any], figures: list[tuple[str, str]]) -> str:
    """Setup, the study's own tables, medians, ratios, the trace breakdown, checks and figures (name, path
    relative to the report); `config` needs the study's block under `studies` and its family's under `models`."""
    steps, comp, checks = (measured(tables[k]) for k in ("steps", "comparisons", "checks"))
    medians = steps.pivot_table(index="config_id", columns=["mode", "variant"], values="median_ms",
                                sort=False)
    medians.columns = [f"{v} ({m})" for m, v in medians.columns]
    comparisons = comp.assign(
        ratio=_with_interval(comp, "ratio", "ratio_ci_low", "ratio_ci_high", "x"),
        difference=_with_interval(comp, "diff_ms", "diff_ci_low_ms", "diff_ci_high_ms", " ms"),
        between_processes=_process_spread(comp),
    )[["config_id", "mode", "variant", "baseline", "ratio", "between_processes", "difference"]]
    study_cfg = config["studies"][name]
    modes = "; ".join(f"`{mode}`: {text}" for mode, text in spec.modes.items())
    lines = [
        f"## Study `{name}`", "", description, "",
        "### Setup", "",
        f"Base configuration `{json.dumps(study_cfg['base'])}`; sweeps (one axis at a time) "
        f"`{json.dumps(study_cfg.get('sweep', {}))}`; measurement `{json.dumps(study_cfg['measure'])}`. "
        f"Model family `{study_cfg['model_family']}`: `{json.dumps(config['models'][study_cfg['model_family']])}`. "
        f"Variants run interleaved in one job per configuration, after a warmup. Modes: {modes}.", "",
        *[f"- Left out: {gone['config']}: {gone['reason']}" for gone in study_cfg.get("left_out", [])],
        *([""] if study_cfg.get("left_out") else []),
    ]
    for title, intro, df in report.tables(tables):
        lines += [f"### {title}", "", intro, "", table(df), ""]
    demos = sorted(set(tables["checks"].config_id) - set(checks.config_id))
    lines += [
        "### Median time per sample (ms)", "",
        *([f"Configurations that demonstrate a pitfall on purpose ({', '.join(demos)}) are left out of this "
           "table and the next; the study's own tables show them beside the proper ones.", ""] if demos else []),
        medians.reset_index().to_markdown(index=False, floatfmt=".3f"), "",
        "### Ratios and differences (median of paired samples, bootstrap 95% interval)", "",
        "Where a configuration ran in several fresh processes (`measure.processes`), the interval resamples "
        "processes, then pairs, and `between_processes` gives the lowest and highest ratio a single process "
        "measured.", "",
        table(comparisons), "",
        *_breakdown_lines(name, spec, tables["overhead"], base_config_id(checks)),
        "### Validity checks", "",
        "What the guards compared and found before any timing counted (a failed check fails the job): the "
        "variants' outputs against the floor's, their recorded code-path signatures, and compilations in the "
        "timed regions (forbidden; counted where a mode measures compilation or demonstrates a pitfall).", "",
        table(tables["checks"][["config_id", "outputs_compared", "outputs_agree", "max_abs_difference",
                                "signatures_distinct", "compiles_in_warmup", "compiles_in_timed_region",
                                "compiles_measured_on_purpose", "compiles_demonstrated"]], ".3g"), "",
        table(tables["checks"][["config_id", "ran_on", "job_seconds", "host_peak_mb", "device_peak_mb"]], ".3g"), "",
        "Machine while timing (per configuration, all modes and processes): rounds kept, rounds re-timed "
        "because other processes or steal used more than `measure.max_busy_share` of the cores, seconds spent "
        "waiting for a quiet machine before re-timing, rounds kept although contended (`on_contention: warn`: "
        "their samples are marked in the JSON), and the largest shares seen: other processes' (a neighbour "
        "you can see with `top`) and steal (the hypervisor's, given to other guests of a VM).", "",
        table(tables["checks"][["config_id", "processes", "on_contention", "rounds_kept", "rounds_retried",
                                "waited_s", "rounds_contended_kept", "others_share_max", "steal_share_max",
                                "load_average_max"]], ".3g"), "",
        "### Figures", "",
    ]
    for fig, path in figures:
        caption = report.FIGURES.get(fig, fig)
        lines += [f"![{caption}]({path})", "", f"*{caption}*", ""]
    return "\n".join(lines)


def _process_spread(comp: pd.DataFrame) -> pd.Series:
    return comp.apply(lambda r: "" if pd.isna(r.get("process_ratio_min")) else
                      f"{r['process_ratio_min']:.3f}-{r['process_ratio_max']:.3f}x", axis=1)


def _breakdown_lines(name: str, spec: StudySpec, overhead: pd.DataFrame, base_id: str) -> list[str]:
    """The traced breakdown of the base configuration: share per component, and its untraced estimate."""
    base = overhead[overhead.config_id == base_id]
    breakdown = base.pivot_table(index="component", columns="variant", values="share", sort=False)
    estimate = base.pivot_table(index="component", columns="variant", values="untraced_estimate_ms", sort=False)
    text = breakdown.map(lambda v: f"{v:.1%}") + estimate.map(lambda v: f" ({v:.3f} ms)")
    described = {c.name: c.description for c in spec.trace_components} | {"rest": "everything else"}
    text.insert(0, "what", [described.get(c, "") for c in text.index])
    return [
        f"### Trace breakdown (configuration `{base_id}`, mode `{spec.traced_mode}`)", "",
        "Share of the traced sample per component (innermost match wins, so the shares add up to the sample); "
        f"in brackets the share applied to the untraced `{spec.traced_mode}` median, which corrects for the "
        f"tracer's inflation of Python time. Per-configuration tables: `results/tables/{name}/overhead.csv`.", "",
        text.reset_index().to_markdown(index=False), "",
    ]


def environment_section(environments: dict[str, pd.DataFrame]) -> str:
    """Each study's environment side by side (studies may differ, e.g. in XLA flags and device count)."""
    columns = {study: env.iloc[0].astype(str) for study, env in environments.items()}
    rows = pd.DataFrame(columns).rename_axis("key").reset_index()
    return "\n".join(["## Environment", "", table(rows), ""])


def render(sections: list[str], title: str = "JAX performance pitfalls: reproduction report") -> str:
    return "\n".join([f"# {title}", "", *sections])
