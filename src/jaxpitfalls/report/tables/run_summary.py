"""The run summary: jobs' wall times from Snakemake's `benchmark:` files, the latest invocation's span, each
study's part, and a preset's summary against its target."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import pandas as pd


def invocation_start(workdir: str | Path = ".") -> float | None:
    """When the invocation rendering the report started: the name of the newest log that has started its job
    (an --unlock or --report writes a newer log of its own); None without one."""
    for log in sorted(Path(workdir, ".snakemake", "log").glob("*.snakemake.log"), reverse=True):
        if "rule render_report:" in log.read_text(errors="replace"):
            try:
                return datetime.strptime(log.name.removesuffix(".snakemake.log"), "%Y-%m-%dT%H%M%S.%f").timestamp()
            except ValueError:
                return None
    return None


def run_summary(benchmark_paths: Iterable[str], since: float | None = None) -> pd.DataFrame:
    """Every job's wall time from Snakemake's `benchmark:` files, with its end (the file's mtime) and, given when
    this invocation started, whether the job ran in it (`this_invocation`)."""
    rows = []
    for path in benchmark_paths:
        p = Path(path)
        bench = pd.read_csv(p, sep="\t")
        at = p.parts.index("benchmarks")
        rows.append({"rule": p.parts[at + 1], "job": "/".join(p.parts[at + 2:]).removesuffix(".tsv"),
                     "seconds": float(bench["s"].iloc[0]), "max_rss_mb": bench["max_rss"].iloc[0],
                     "end": p.stat().st_mtime})
    summary = pd.DataFrame(rows)
    if since is not None and rows:
        summary["this_invocation"] = summary["end"] - summary["seconds"] >= since - 1.0  # the mtime's rounding
    return summary


IDLE_GAP_S = 60.0


def span_seconds(summary: pd.DataFrame) -> tuple[float | None, int]:
    """The latest invocation's wall time and how many older jobs a partial rerun left: its jobs as recorded
    (`this_invocation`), else split at idle gaps."""
    if summary.empty:
        return None, 0
    jobs = summary.assign(start=summary["end"] - summary["seconds"]).sort_values("start")
    if "this_invocation" in jobs:
        latest = jobs[jobs.this_invocation.astype(bool)]  # none: only the report's jobs reran
        return (float(latest["end"].max() - latest["start"].min()) if len(latest) else None), len(jobs) - len(latest)
    first, running_until = 0, None
    for i, (start, end) in enumerate(zip(jobs["start"], jobs["end"], strict=True)):
        if running_until is not None and start - running_until > IDLE_GAP_S:
            first = i
        running_until = end if running_until is None else max(running_until, end)
    latest = jobs.iloc[first:]
    return float(latest["end"].max() - latest["start"].min()), first


def _own_jobs(summary: pd.DataFrame, study: str, own_preparations: list[str]) -> tuple[pd.Series, pd.Series]:
    """Which rows of the summary are the study's own jobs, and which the preparations only it needs."""
    return summary.job.str.startswith(f"{study}/"), (summary.rule + "/" + summary.job).isin(own_preparations)


def study_seconds(summary: pd.DataFrame, study: str, own_preparations: list[str]) -> float:
    """A study's part of the run: its jobs' times plus the preparations only it needs."""
    if summary.empty:
        return 0.0
    jobs, prepared = _own_jobs(summary, study, own_preparations)
    return float(summary.loc[jobs | prepared, "seconds"].sum())


TRACE_RULES = ("capture_trace", "parse_trace")
STARTS, PREPARING = "worker starts and imports", "models, compiles, warm-up and checks"
PARTS = {"timed samples": "samples_s", "A/A twins": "twins_s", "first runs": "first_runs_s",
         "waiting for quiet": "waited_s", "between samples": "between_samples_s",  # primers, set-ups, the yardstick
         STARTS: "starts_s", PREPARING: "preparing_s"}  # the last in a worker, outside its rounds and waits


def study_split(summary: pd.DataFrame, study: str, own_preparations: list[str],
                checks: pd.DataFrame) -> dict[str, float] | None:
    """A study's part of the run by what it bought (PARTS as its checks recorded them, the rest of its timing jobs,
    traces, preparations); None for a checks table without the samples' seconds."""
    if summary.empty or "samples_s" not in checks:
        return None
    jobs, prepared = _own_jobs(summary, study, own_preparations)
    mine = summary[jobs]
    timing = float(mine.loc[mine.rule == "run_study", "seconds"].sum())
    spent = {name: float(checks[column].sum()) for name, column in PARTS.items()
             if column in checks and checks[column].notna().all()}  # an older result's: what it recorded
    return spent | {"the rest of its timing jobs": timing - sum(spent.values()),
                    "traces": float(mine.loc[mine.rule.isin(TRACE_RULES), "seconds"].sum()),
                    "preparations": float(summary.loc[prepared, "seconds"].sum())}


def machine_time_lines(parts: dict[str, float], target_s: float) -> list[str]:
    """A run summary of the timing jobs' machine time, part by part, against `target_s` (0: not judged)."""
    total = sum(parts.values())
    judged = (f" against the run's target of {target_s:.0f} s ({target_s / 60:.0f} min): "
              f"{'met' if total <= target_s else '**missed**'}" if target_s else "")
    return ["## Run summary", "",
            f"Machine time of the run's timing jobs: {total:.0f} s ({total / 60:.1f} min){judged}; "
            + ", ".join(f"{name} {s:.0f} s" for name, s in parts.items() if s)
            + ". The run's wall time adds the models' preparation and each job's start.", ""]
