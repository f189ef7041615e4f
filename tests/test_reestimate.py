"""A snapshot measured before the moderated estimator, estimated again from the tables it keeps
(across_runs/reference/reestimate.py): its job rows become what harness.processes.merge now makes of the same
processes, its per-process rows stay as they were, and one estimated by today's code comes out as it was."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from results_docs import process_doc

from jaxpitfalls.across_runs.reference.reestimate import reestimate, reestimated
from jaxpitfalls.harness import stats
from jaxpitfalls.harness.processes import merge
from jaxpitfalls.report.tables import aggregate
from jaxpitfalls.report.tables.over_processes import steps_over_processes

MEDIAN = ["median_ms", "median_ci_low_ms", "median_ci_high_ms"]
ESTIMATED = ["ratio", "ratio_ci_low", "ratio_ci_high", "diff_ms", "diff_ci_low_ms", "diff_ci_high_ms"]


def _add(doc: dict, name: str, factor: float, spread: float, seed: int) -> None:
    """Variant `name` at `factor` x the floor, moved by a process's draw of `spread` (a first run where > 0)."""
    floor = doc["variants"]["f"]["modes"]["m"]["samples_s"]
    xs = [x * factor * float(np.exp(np.random.default_rng(seed).normal(0, spread))) for x in floor]
    entry = doc["variants"]["f"]["modes"]["m"] | {"samples_s": xs, "summary": stats.summarize(xs)}
    doc["variants"][name] = doc["variants"]["f"] | {"modes": {"m": entry | (
        {"measures_compilation": True} if spread else {})}, "signature": {"code": "s" + name}}
    doc["comparisons"].append({"variant": name, "baseline": "f", "mode": "m"} | stats.paired_comparison(xs, floor))


def _with_first_runs(doc: dict, seed: int) -> dict:
    """`doc` with a second warm variant `w` and two first runs `c` and `d` (30x and 40x the floor, each process's
    compile moving them)."""
    for name, factor, spread in (("w", 1.2 + 0.06 * seed, 0.0), ("c", 30, 0.3), ("d", 40, 0.3)):
        _add(doc, name, factor, spread, seed + 10 * len(doc["variants"]))
    return doc


def _tables(*levels: float, first_run: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    docs = [process_doc(level, seed) for seed, level in enumerate(levels)]
    docs = [_with_first_runs(d, seed) for seed, d in enumerate(docs)] if first_run else docs
    merged = merge(docs) | {"config_id": "c", "config": {"id": "c", "model": "m", "axes": []}}
    return aggregate.comparisons_table([merged]), aggregate.steps_table([merged])


def _as_published_before(table: pd.DataFrame) -> pd.DataFrame:
    """The table as a snapshot kept it before: no degrees of freedom, the job rows' own numbers."""
    before = table.drop(columns=list(aggregate.ESTIMATE_COLUMNS))
    before.loc[before.process == "all", ESTIMATED] = 9.0
    return before


@pytest.mark.parametrize("first_run", [False, True])
def test_the_job_rows_become_what_the_merge_makes_of_the_same_processes(first_run):
    """Beside first runs too: the steps table's marks pool them apart as the merge did (pooled.pool_group), the
    two warm rows together (more degrees of freedom than their own 2, which pooling with first runs leaves)."""
    now, steps = _tables(1.0, 1.1, 1.3, first_run=first_run)
    again = reestimated(_as_published_before(now), steps)
    pd.testing.assert_frame_equal(again, now, check_dtype=False)
    df = now[now.process == "all"].set_index("variant").ratio_df
    assert (df.loc[["v", "w"]] > 2.5).all() if first_run else df.loc["v"] == 2  # one row: its own spread


def test_the_job_s_medians_become_what_the_steps_table_makes_of_the_same_processes():
    _, steps = _tables(1.0, 1.1, 1.3)
    before = steps.copy()
    before.loc[before.process == "all", ["median_ms", "median_ci_low_ms", "relative_iqr_ci_high"]] = 9.0
    pd.testing.assert_frame_equal(steps_over_processes(before), steps)


def test_a_snapshot_estimated_by_todays_code_comes_out_as_it_was(tmp_path):
    now, steps = _tables(1.0, 1.2)
    pd.testing.assert_frame_equal(reestimated(now, steps), now, check_dtype=False)
    tables = tmp_path / "tables" / "s"
    tables.mkdir(parents=True)
    _as_published_before(now).to_csv(tables / "comparisons.csv", index=False)
    steps.assign(median_ci_low_ms=steps.median_ci_low_ms.where(steps.process != "all", 9.0)).to_csv(
        tables / "steps.csv", index=False)
    assert reestimate(tmp_path) == ["tables/s/steps.csv", "tables/s/comparisons.csv"]
    assert reestimate(tmp_path) == []  # estimated again: nothing changes
    written = pd.read_csv(tables / "comparisons.csv", dtype={"process": str})
    pd.testing.assert_frame_equal(written[ESTIMATED], now[ESTIMATED], check_dtype=False)
    written = pd.read_csv(tables / "steps.csv", dtype={"process": str})
    pd.testing.assert_frame_equal(written[MEDIAN], steps[MEDIAN], check_dtype=False)


def test_a_one_process_job_reads_each_difference_off_its_ratio_as_its_estimate_again_does():
    """One process has no spread between processes to pool: its ratios stand, and each difference is the one
    its ratio stands for at the job's medians, as `reestimated` reads it (one estimate per effect); an overhead
    ratio's difference is r - 1 times the baseline overhead its own row gives, so the rows add up."""
    doc = process_doc(1.2, 0)
    rng = np.random.default_rng(1)
    samples = {name: list(np.asarray(doc["variants"]["f"]["modes"]["m"]["samples_s"]) * level
                          * rng.uniform(0.97, 1.03, 8)) for name, level in (("f", 1.0), ("v", 1.2), ("w", 1.5))}
    doc["variants"] = {name: doc["variants"]["f"] | {"modes": {"m": doc["variants"]["f"]["modes"]["m"]
                                                                | {"samples_s": xs, "summary": stats.summarize(xs)}},
                                                     "signature": {"code": name}}
                       for name, xs in samples.items()}
    pairs = [("v", "f"), ("w", "f"), ("w - f", "v - f")]
    doc["comparisons"] = [{"variant": a, "baseline": b, "mode": "m"} | stats.paired_comparison(
        stats.side_samples(samples, a), stats.side_samples(samples, b), of_medians=stats.is_difference(a, b))
        for a, b in pairs]
    merged = merge([doc]) | {"config_id": "c", "config": {"id": "c", "model": "m", "axes": []}}
    now, steps = aggregate.comparisons_table([merged]), aggregate.steps_table([merged])
    pd.testing.assert_frame_equal(reestimated(now, steps)[ESTIMATED], now[ESTIMATED], check_dtype=False)
    overhead = now[now.variant == "w - f"].iloc[0]
    assert overhead.diff_ms == pytest.approx((overhead.ratio - 1) * now[now.variant == "v"].diff_ms.iloc[0])


def test_the_traces_untraced_estimates_follow_the_medians_estimated_again(tmp_path):
    """A trace's component time is its share of the job's median: estimated again, the overhead table reads the new
    median, so the report's breakdown and a claim reading the same median say one number."""
    now, steps = _tables(1.0, 1.2)
    tables = tmp_path / "tables" / "s"
    tables.mkdir(parents=True)
    now.to_csv(tables / "comparisons.csv", index=False)
    steps.assign(median_ms=steps.median_ms.where(steps.process != "all", 9.0)).to_csv(tables / "steps.csv",
                                                                                      index=False)
    job = steps[steps.process == "all"]
    traced = pd.DataFrame({"variant": job.variant, "component": "_bind", "share": 0.25, "capture": 0,
                           "config_id": job.config_id, "mode": job["mode"]})
    aggregate.overhead_table([traced], job.assign(median_ms=9.0)).to_csv(tables / "overhead.csv", index=False)
    assert "tables/s/overhead.csv" in reestimate(tmp_path)
    overhead = pd.read_csv(tables / "overhead.csv")
    assert overhead.untraced_step_ms.tolist() == pytest.approx(job.median_ms.tolist())
    assert overhead.untraced_estimate_ms.tolist() == pytest.approx((0.25 * job.median_ms).tolist())


def test_a_study_without_traces_keeps_its_empty_overhead_table(tmp_path):
    now, steps = _tables(1.0, 1.2)
    tables = tmp_path / "tables" / "s"
    tables.mkdir(parents=True)
    now.to_csv(tables / "comparisons.csv", index=False)
    steps.to_csv(tables / "steps.csv", index=False)
    (tables / "overhead.csv").write_text("")
    assert "tables/s/overhead.csv" not in reestimate(tmp_path) and (tables / "overhead.csv").read_text() == ""
