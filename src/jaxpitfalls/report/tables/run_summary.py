"""The run summary: every job's wall time from Snakemake's `benchmark:` files, the latest invocation's span,
and each study's part of it; and a preset's own summary from its jobs' clocks against its target."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd


def run_summary(benchmark_paths: Iterable[str]) -> pd.DataFrame:
    """Every job's wall time from Snakemake's `benchmark:` files, with its end (the file's mtime)."""
    rows = []
    for path in benchmark_paths:
        p = Path(path)
        bench = pd.read_csv(p, sep="\t")
        at = p.parts.index("benchmarks")
        rows.append({"rule": p.parts[at + 1], "job": "/".join(p.parts[at + 2:]).removesuffix(".tsv"),
                     "seconds": float(bench["s"].iloc[0]), "max_rss_mb": bench["max_rss"].iloc[0],
                     "end": p.stat().st_mtime})
    return pd.DataFrame(rows)


IDLE_GAP_S = 60.0


def span_seconds(summary: pd.DataFrame) -> tuple[float | None, int]:
    """The latest invocation's wall time (first job start to last job end) and how many jobs predate it.

    A partial rerun keeps older jobs' benchmark files; a stretch of more than a minute with no job running
    separates invocations, so the span starts after the last such gap and the older jobs are counted apart.
    """
    if summary.empty:
        return None, 0
    jobs = summary.assign(start=summary["end"] - summary["seconds"]).sort_values("start")
    first, running_until = 0, None
    for i, (start, end) in enumerate(zip(jobs["start"], jobs["end"], strict=True)):
        if running_until is not None and start - running_until > IDLE_GAP_S:
            first = i
        running_until = end if running_until is None else max(running_until, end)
    latest = jobs.iloc[first:]
    return float(latest["end"].max() - latest["start"].min()), first


def study_seconds(summary: pd.DataFrame, study: str, own_preparations: list[str]) -> float:
    """A study's part of the run: its jobs' times plus the preparations only it needs (timing jobs run one
    at a time, so this is close to the wall time the study adds)."""
    if summary.empty:
        return 0.0
    mine = summary.job.str.startswith(f"{study}/") | (summary.rule + "/" + summary.job).isin(own_preparations)
    return float(summary.loc[mine, "seconds"].sum())


def machine_time_lines(parts: dict[str, float], target_s: float) -> list[str]:
    """A run summary from the machine time its timing jobs took, part by part (a part of 0 s left out), against
    the run's `run_target_s` where it is this report's to judge (0: not judged): a preset's report judges its own
    time, and a rejudged page the time its run kept. The models' preparation and the jobs' starts are not in it,
    so the run's wall time is longer."""
    total = sum(parts.values())
    judged = (f" against the run's target of {target_s:.0f} s ({target_s / 60:.0f} min): "
              f"{'met' if total <= target_s else '**missed**'}" if target_s else "")
    return ["## Run summary", "",
            f"Machine time of the run's timing jobs: {total:.0f} s ({total / 60:.1f} min){judged}; "
            + ", ".join(f"{name} {s:.0f} s" for name, s in parts.items() if s)
            + ". The run's wall time adds the models' preparation and each job's start.", ""]
