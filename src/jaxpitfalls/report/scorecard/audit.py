"""The report's audit beside the claims: the run's time and memory against their targets, the code it ran and the
machine's quiet (the run summary), and the floors' A/A twins (each job times its floor twice, true ratio 1, so an
interval excluding 1 is a false alarm counted on every run; same code, so a twin's ratio cannot move between
processes)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...formatting import short
from ...harness.stats import is_twin, wilson
from ..tables.run_summary import PREPARING, STARTS
from ..tables.study_allocation import allocation_lines
from .markdown import table


def _against(seconds: float, target_s: float | None) -> str:
    return "" if not target_s else f" (target {target_s:.0f} s: {'met' if seconds <= target_s else '**missed**'})"


def _memory_against(gib: float, target_gib: float) -> str:
    met = "met" if gib < target_gib else "**missed**"
    return "" if not target_gib else f" (target under {target_gib:g} GiB: {met})"


def quietness_line(checks: pd.DataFrame) -> str:
    """How quiet and how fast (the yardstick) the machine was while a study was timed."""
    speed = checks["yardstick_ms"].dropna() if "yardstick_ms" in checks else pd.Series(dtype=float)
    pace = (f"; the yardstick (a fixed Python and numpy workload timed every round) {speed.median():.2f} ms, its "
            f"jobs' medians {speed.min():.2f}-{speed.max():.2f}" if len(speed) else "")
    if not checks["machine_measurable"].all():
        return "machine activity not measurable here (no /proc/stat)" + pace
    kept, retried, marked = (int(checks[k].sum()) for k in ("rounds_kept", "rounds_retried", "rounds_contended_kept"))
    contended = f"**{marked} kept although contended**" if marked else "none kept contended"
    return (f"{kept} rounds kept, {retried} re-timed (contended) after waiting {checks.waited_s.sum():.0f} s in all "
            f"for a quiet machine, {contended}; other processes up to {checks.others_share_max.max():.0%} of the "
            f"cores, steal (the hypervisor's) up to {checks.steal_share_max.max():.0%}, load average up to "
            f"{checks.load_average_max.max():.2f}{pace}")


def code_line(checks: dict[str, pd.DataFrame]) -> str:
    """Which code the timing jobs ran: one workflow commit and one version of each user study's own (a file's or a
    folder's), or each study's, said loudly."""
    codes = {study: sorted(set(c["code"])) if "code" in c else ["unknown"] for study, c in checks.items()}
    every = sorted({code.partition("+study:")[0] for cs in codes.values() for code in cs})
    files = [f"`{s}`" for s, cs in codes.items() if len({c.partition("+study:")[2] for c in cs}) > 1]
    if len(every) == 1 and not files:
        edits = " with uncommitted edits" if every[0].endswith("+dirty") else ""
        return f"Every timing job ran the workflow's code at `{every[0].removesuffix('+dirty')}`{edits}."
    per_study = "; ".join(f"`{study}`: {', '.join(f'`{c}`' for c in cs)}" for study, cs in codes.items())
    what = f"more than one version of {', '.join(files)}'s own code" if len(every) == 1 else \
        f"{len(every)} versions of the workflow's code"
    return (f"**The timing jobs ran {what}** ({per_study}): results of different code are compared here as if "
            "alike; rerun the older jobs before publishing.")


def run_summary_section(summary: pd.DataFrame, span: tuple[float | None, int], targets: dict[str, Any],
                        parts: dict[str, tuple[float, float | None, dict[str, float] | None]],
                        checks: dict[str, pd.DataFrame]) -> str:
    """Wall time and peak memory against `targets`, time per rule, the code run, and the machine's quiet."""
    target_s = targets["run_target_s"]
    per_rule = summary.groupby("rule").agg(jobs=("seconds", "size"), seconds=("seconds", "sum"),
                                           slowest_s=("seconds", "max"),
                                           sampled_peak_rss_gib=("max_rss_mb", lambda mb: mb.max() / 1024)
                                           ).reset_index()
    span_s, older = span
    lines = ["### Run summary", ""]
    if span_s is None and older:
        lines += [f"The latest invocation reran none of the {older} jobs timed here (only the report's): every "
                  "one is from an earlier invocation, and no run's wall time is measured here.", ""]
    elif span_s is not None:
        whole = (f"; {older} of the {len(summary)} jobs are from earlier invocations (a partial rerun: the whole "
                 "run's time is not measured here)") if older else f"{_against(span_s, target_s)}"
        lines += [f"Measured wall time of the jobs of the latest invocation, first start to last end: "
                  f"**{span_s:.0f} s**{whole}. Sum of all job times {summary.seconds.sum():.0f} s over "
                  f"{len(summary)} jobs (from Snakemake's `benchmark:` files; the report's own jobs are not "
                  "included).", ""]
    lines += [code_line(checks), ""]
    if len(summary):
        peak_mb, job, source = largest_peak(summary, checks)
        lines += [f"Peak memory: **{peak_mb / 1024:.1f} GiB** resident, the largest job (`{job}`, {source})"
                  f"{_memory_against(peak_mb / 1024, targets['memory_target_gib'])}; (per job: jobs that ran side "
                  "by side add up; the table's per rule is Snakemake's, sampled at intervals over a job's "
                  "processes summed, its driver with its worker, so it can exceed a worker's own high-water mark "
                  "or miss a brief peak of it).", ""]
    for study, (seconds, study_target, split) in parts.items():
        lines.append(f"- study `{study}`: {seconds:.0f} s of jobs{_against(seconds, study_target)} "
                     "(its measuring jobs and the preparations only it needs)" + _split_text(split))
    planned = {study: allocation_lines(c) for study, c in checks.items()}
    if any(planned.values()):
        lines += ["", "Where processes or rounds buy precision (Kalibera and Jones, from each job's own variance "
                  "between and within processes and its costs; a plan at the variance the job reached, not a "
                  "measured run, every mode's rounds scaled alike; a mode's `budget_s` may stop rounds sooner, and a "
                  "claim on a process's first run gains nothing from rounds):", ""]
        lines += [f"- study `{study}`: {line}" for study, found in planned.items() for line in found]
    lines += ["", "Machine while timing (a round is re-timed or marked when other processes or steal used more "
              "than `measure.max_busy_share` of the cores; the yardstick is the machine's speed: a run slower than "
              "another by about its yardstick's ratio was slowed by the machine, beyond it by something else):", ""]
    lines += [f"- study `{study}`: {quietness_line(c)}" for study, c in checks.items()]
    lines += ["", table(per_rule, short), ""]
    return "\n".join(lines)


def _split_text(split: dict[str, float] | None) -> str:
    if split is None:
        return ""
    what = ("the job's own process: its imports, its workers' launch, merging, writing" if PREPARING in split else
            "models loaded, warm-up and compiles, checks" if STARTS in split else
            "process starts, imports, models loaded, warm-up and compiles, checks")
    return ": " + ", ".join(f"{name} {seconds:.0f} s" + (f" ({what})" if name.startswith("the rest") else "")
                            for name, seconds in split.items())


def largest_peak(summary: pd.DataFrame, checks: dict[str, pd.DataFrame]) -> tuple[float, str, str]:
    """The largest resident peak (MiB), its job and source: Snakemake's benchmark or the workers' VmHWM."""
    peaks = [(r.max_rss_mb, f"{r.rule}/{r.job}", "Snakemake's benchmark record") for r in summary.itertuples()]
    peaks += [(mb, f"run_study/{study}/{config_id}", "its processes' own high-water mark")
              for study, c in checks.items() if "host_peak_mb" in c
              for config_id, mb in zip(c.config_id, c.host_peak_mb, strict=True) if pd.notna(mb)]
    return max(peaks, key=lambda peak: peak[0])


def twin_rows(comparisons: pd.DataFrame) -> pd.DataFrame:
    """A study's twin rows of its comparisons table (read with twins: aggregate.read_tables)."""
    return comparisons[comparisons.variant.astype(str).map(is_twin)].reset_index(drop=True)


def _missed(rows: pd.DataFrame) -> int:
    """How many twin rows' intervals exclude 1."""
    return int(((rows.ratio_ci_low > 1) | (rows.ratio_ci_high < 1)).sum())


def _row(study: str, rows: pd.DataFrame) -> dict[str, object]:
    half = np.median((rows.ratio_ci_high - rows.ratio_ci_low) / 2 / rows.ratio)  # over 10: t on a df or two
    return {"study": study, "rows": len(rows), "jobs": rows.config_id.nunique(), "excluded 1": _missed(rows),
            "largest |ratio - 1|": f"{np.max(np.abs(rows.ratio - 1)):.1%}",
            "median half-width": f"{half:.1%}" if half < 10 else "over 1000% (few processes)"}


def twin_warning(rows: Mapping[str, pd.DataFrame]) -> list[str]:
    """Above every verdict: the floor against itself excluded 1 more often than 95% intervals allow."""
    every = pd.concat(found) if (found := [r for r in rows.values() if len(r)]) else None
    if every is None or wilson(alarms := _missed(every), len(every))[0] <= 0.05:
        return []
    return [f"**The floor timed against itself (its A/A twin) excluded 1 in {alarms} of {len(every)} rows, more than "
            f"the 5% its 95% intervals allow: read this run's intervals as too narrow, and changes within "
            f"{np.max(np.abs(every.ratio - 1)):.1%} as identical code showed.** The audit's \"A/A twins\".", ""]


def twin_sections(rows: Mapping[str, pd.DataFrame]) -> list[str]:
    """The audit's section on every study's twins (`rows`: by study); none where no job had one."""
    found = {study: r for study, r in rows.items() if len(r)}
    if not found:
        return []
    every = pd.concat(found.values())
    alarms = _missed(every)
    low, high = wilson(alarms, len(every))
    return ["\n".join(["### A/A twins", "",
            f"Every job times its floor twice in the same rounds under two names (`<floor>~twin`): the true ratio "
            f"is 1, so an interval that excludes it is a false alarm of this run's own intervals. **{alarms} of "
            f"{len(every)}** twin rows excluded 1 ({alarms / len(every):.1%}, Wilson 95% [{low:.1%}, {high:.1%}]; "
            "5% expected at the 95% level: each twin is judged on its own spread between processes (a one-process "
            "job's on its rounds'), pooled with its job's other twins only). The rows of one job share its "
            "processes, so that interval is too narrow; and a twin runs the same code, so it cannot show a real pair "
            "whose ratio moves from process to process (docs/decisions.md#a-twin-judged-on-its-own-spread).", "",
            table(pd.DataFrame([_row(study, r) for study, r in found.items()])), ""])]
