"""A published snapshot's job rows estimated again by this checkout's estimator from the per-process rows its tables
keep, so that its claims are judged on today's intervals without timing a new run.

    jaxpitfalls reference reestimate SNAPSHOT
    jaxpitfalls reference reestimate SNAPSHOT --why "..."   (where a verdict moves: what changed)

then renders the whole snapshot again from the tables.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ...harness.pooled import STEADY, pool_group, pooled_intervals, read_off
from ...report.tables.aggregate import ESTIMATE_COLUMNS, POOLED, overhead_table
from ...report.tables.over_processes import compile_ratios_over_processes, steps_over_processes
from .reference import table_paths
from .rendered import record_rejudged, render

PAIR = ["variant", "baseline", "mode"]
RATIO = ["ratio", "ratio_ci_low", "ratio_ci_high"]
UNTRACED = ["untraced_step_ms", "untraced_estimate_ms"]  # overhead_table's columns from the job's medians
MS = {"diff": "diff_ms", "diff_ci_low": "diff_ci_low_ms", "diff_ci_high": "diff_ci_high_ms"}


def step_groups(steps: pd.DataFrame) -> dict[tuple[str, str], str]:
    """A job's steps table's (variant, mode)s that pool apart from the steady ones, with their pool_group (the
    table's own marks, as processes.pool_groups reads a result's)."""
    if "process" not in steps:
        return {}
    merged = steps[steps.process.astype(str) == POOLED]
    return {(r.variant, r.mode): group for r in merged.itertuples() if (group := pool_group(r._asdict())) != STEADY}


def estimated_job(rows: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """One configuration's job rows from its processes' rows (one process: its ratios as they were, each
    difference read off its ratio)."""
    job, own = rows[rows.process.astype(str) == POOLED], rows[rows.process.astype(str) != POOLED]
    medians = (steps[steps.process.astype(str) == POOLED].set_index(["variant", "mode"]).median_ms / 1e3).to_dict()
    pairs = [tuple(r[PAIR]) for _, r in job.iterrows()]
    if own.empty:
        return _read_off(job, pairs, medians)
    mine = [own.merge(pd.DataFrame([r[PAIR]]), on=PAIR).sort_values("process") for _, r in job.iterrows()]
    found = pooled_intervals(pairs, [[None if pd.isna(x) else float(x) for x in m.ratio] for m in mine],
                             [list(m.diff_ms / 1e3) for m in mine], medians, step_groups(steps))
    new = pd.DataFrame([{MS.get(k, k): v * 1e3 if k in MS else v for k, v in f.items()} for f in found],
                       index=job.index)
    return job.drop(columns=[c for c in new if c in job]).join(new)[[*job.columns, *ESTIMATE_COLUMNS]]


def _read_off(job: pd.DataFrame, pairs: list[tuple], medians: dict) -> pd.DataFrame:
    """A one-process job's rows, each difference the one its ratio stands for where it stands for one."""
    job = job.copy()
    ratios = [[None if pd.isna(x) else float(x) for x in r[RATIO]] for _, r in job.iterrows()]
    for index, ends in zip(job.index, read_off(pairs, ratios, medians), strict=True):
        if ends is not None:
            job.loc[index, list(MS.values())] = [x * 1e3 for x in ends]
    return job


def reestimated(comparisons: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """The comparisons table with every job row estimated again, in the table's own order."""
    comparisons = comparisons.drop(columns=[c for c in ESTIMATE_COLUMNS if c in comparisons])
    jobs = [estimated_job(rows, steps[steps.config_id == config]) for config, rows in comparisons.groupby("config_id",
                                                                                                sort=False)]
    own = comparisons[comparisons.process.astype(str) != POOLED]
    return pd.concat([*jobs, own]).loc[comparisons.index]


def untraced_again(path: Path, steps: pd.DataFrame) -> None:
    """The traces' untraced estimates (share x the job's median) from the medians estimated again, so a component's
    time is one estimate wherever it is read."""
    if not path.stat().st_size:
        return
    overhead = pd.read_csv(path)
    if "share" in overhead and UNTRACED[0] in overhead:  # a study that traced: shares and the merged medians
        overhead = overhead.drop(columns=UNTRACED, errors="ignore")
        overhead_table([overhead], steps[steps.process == POOLED]).to_csv(path, index=False)


def reestimate(snapshot: Path) -> list[str]:
    """Estimate every study's steps, then comparisons, tables again; returns the tables that changed (recorded in the
    manifest)."""
    written = []
    for study in sorted(p.name for p in (snapshot / "tables").iterdir() if p.is_dir()):
        paths = {name: Path(path) for name, path in table_paths(snapshot, study).items()}
        before = {name: paths[name].read_text() for name in ("steps", "comparisons", "overhead")
                  if paths[name].exists()}
        steps = steps_over_processes(pd.read_csv(paths["steps"], dtype={"process": str}))
        steps.to_csv(paths["steps"], index=False)
        comparisons = pd.read_csv(paths["comparisons"], dtype={"process": str})
        marks = {config: step_groups(rows) for config, rows in steps.groupby("config_id")}
        compile_ratios_over_processes(reestimated(comparisons, steps), marks).to_csv(paths["comparisons"], index=False)
        if "overhead" in before:
            untraced_again(paths["overhead"], steps)
        written += [str(paths[name].relative_to(snapshot)) for name, text in before.items()
                    if paths[name].read_text() != text]
    record_rejudged(snapshot, written)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jaxpitfalls reference reestimate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--why", help="what changed, said beside each verdict that moves (required where one does)")
    args = parser.parse_args(argv)
    written = reestimate(args.snapshot)
    print("\n".join(f"estimated again: {w}" for w in written) or "nothing to estimate again")
    render(args.snapshot, args.why)
    print(f"rendered {args.snapshot} again from its tables")
    return 0
