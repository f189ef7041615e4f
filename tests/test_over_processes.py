"""A job's medians, relative IQRs, step shares and compile ratios over its fresh processes
(report/tables/over_processes.py): each process's own value, their mean on the log (logit) scale and Student's t on
the spread between processes, as the job's comparisons are judged; a job of one process keeps its bootstrap."""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd
import pytest
from results_docs import process_doc
from scipy.stats import t

from jaxpitfalls.contract.decisions import row
from jaxpitfalls.harness import moderated
from jaxpitfalls.harness.processes import merge
from jaxpitfalls.report.tables import aggregate
from jaxpitfalls.report.tables.over_processes import compile_ratios_over_processes, steps_over_processes

JOB = {"config_id": "c", "config": {"id": "c", "model": "m", "axes": []}}


def _steps(*levels: float, offsets=(1.0, 1.0, 1.0)) -> pd.DataFrame:
    """The steps table of one job whose processes ran `offsets` times slower than the first, every variant alike."""
    docs = [process_doc(level, seed) for seed, level in enumerate(levels)]
    for doc, offset in zip(docs, offsets, strict=False):
        for v in doc["variants"].values():
            m = v["modes"]["m"]
            m["samples_s"] = [x * offset for x in m["samples_s"]]
            m["summary"] = m["summary"] | {"median": float(np.median(m["samples_s"]))}
    return aggregate.steps_table([merge(docs) | JOB])


def test_a_job_s_median_is_its_processes_medians_mean_on_the_log_scale_with_t_over_them():
    steps = _steps(1.0, 1.0, 1.0, offsets=(1.0, 1.1, 0.95))
    own = {v: [row(steps, variant=v, process=str(p)).median_ms for p in range(3)] for v in ("f", "v")}
    expected = moderated.pooled([np.log(own["f"]), np.log(own["v"])])
    for variant, e in zip(("f", "v"), expected, strict=True):
        job = row(steps, variant=variant, process="all")
        assert (job.median_ms, job.median_ci_low_ms, job.median_ci_high_ms) == pytest.approx(e.as_ratio())
        assert job.median_ci_low_ms < min(own[variant]) and job.median_ci_high_ms > max(own[variant])


def test_a_first_run_s_median_pools_its_spread_apart_from_the_warm_variants():
    """A variant whose samples compile (`measures_compilation`) is estimated on its own spread, as the job's merge
    estimates its ratios (pooled.pool_group)."""
    docs = [process_doc(1.0, seed) for seed in range(3)]
    for doc in docs:
        doc["variants"]["v"]["modes"]["m"]["measures_compilation"] = True
    steps = aggregate.steps_table([merge(docs) | JOB])
    for variant in ("f", "v"):
        own = [row(steps, variant=variant, process=str(p)).median_ms for p in range(3)]
        job = row(steps, variant=variant, process="all")
        alone = moderated.estimate(np.log(own)).as_ratio()  # nothing else in its kind: its own spread alone
        assert (job.median_ms, job.median_ci_low_ms, job.median_ci_high_ms) == pytest.approx(alone)


def test_a_slow_process_widens_the_job_s_median_interval_as_much_as_the_spread_between_processes_says():
    """Two processes about 20% apart, every row alike: the interval rests on one degree of freedom (t = 12.7) on
    their spread, where a bootstrap over them reached no further than the slower process."""
    steps = _steps(1.0, 1.0, offsets=(1.0, 1.2))
    for variant in ("f", "v"):
        job = row(steps, variant=variant, process="all")
        apart = abs(math.log(row(steps, variant=variant, process="1").median_ms
                             / row(steps, variant=variant, process="0").median_ms))
        assert apart > math.log(1.1)
        assert math.log(job.median_ci_high_ms / job.median_ms) > 0.9 * t.ppf(0.975, 1) * apart / 2


def test_a_job_of_one_process_keeps_its_bootstrap_over_samples():
    doc = process_doc(1.0, 0) | JOB
    job = row(aggregate.steps_table([doc]), variant="f", process="all")
    samples = doc["variants"]["f"]["modes"]["m"]["samples_s"]
    assert min(samples) * 1e3 <= job.median_ci_low_ms < job.median_ms < job.median_ci_high_ms <= max(samples) * 1e3


def test_a_row_the_log_cannot_hold_gets_no_interval_and_leaves_the_others_judged():
    """A relative IQR of 0 in one process (a clock too coarse to see a spread) has no logarithm."""
    steps = _steps(1.0, 1.0, 1.0)
    steps.loc[(steps.variant == "f") & (steps.process == "1"), "relative_iqr"] = 0.0
    again = steps_over_processes(steps)
    f, v = (row(again, variant=name, process="all") for name in ("f", "v"))
    assert (f.relative_iqr, f.relative_iqr_ci_low, f.relative_iqr_ci_high) == (0.0, 0.0, math.inf)
    assert 0 < v.relative_iqr_ci_low < v.relative_iqr < v.relative_iqr_ci_high < math.inf


def test_a_share_over_processes_stays_between_0_and_1():
    docs = [process_doc(1.0, 0), process_doc(1.0, 1), process_doc(1.0, 2)]
    for doc, a in zip(docs, (0.001, 0.01, 0.002), strict=True):
        doc["variants"]["v"]["modes"]["m"]["step_seconds"] = {"a": [a] * 10, "b": [1 - a] * 10}
    job = row(aggregate.steps_table([merge(docs) | JOB]), variant="v", process="all")
    assert 0 < job.step_a_share_ci_low < job.step_a_share < job.step_a_share_ci_high < 1
    assert 0 < job.step_b_share_ci_low < job.step_b_share < job.step_b_share_ci_high < 1


def test_a_compile_ratio_is_judged_over_processes():
    docs = [process_doc(1.0, seed) for seed in range(3)]
    for doc, ratio in zip(docs, (2.0, 2.5, 1.8), strict=True):
        for name, scale in (("f", 1.0), ("v", ratio)):
            doc["variants"][name]["modes"]["m"]["compile_seconds"] = [0.1 * scale] * 8
    table = aggregate.comparisons_table([merge(docs) | JOB])
    job = row(table, variant="v", process="all")
    e = moderated.estimate(np.log([2.0, 2.5, 1.8]))
    assert (job.compile_ratio, job.compile_ratio_ci_low, job.compile_ratio_ci_high) == pytest.approx(e.as_ratio())
    assert job.compile_ratio_df == pytest.approx(e.df)  # what an undecided compile sentence says would decide it
    pd.testing.assert_frame_equal(compile_ratios_over_processes(table, {"c": {}}), table)


def test_compile_ratios_pool_with_their_kind():
    """Two first runs' compile ratios pool together; a RECOMPILES variant's, against the same floor, alone (its
    compiles are a warm process's, spread as those are): its interval is its own processes' alone."""
    docs = [process_doc(1.0, seed) for seed in range(3)]
    ratios = {"a": (2.0, 2.1, 1.9), "b": (3.0, 3.3, 2.9), "r": (0.5, 0.9, 0.3)}
    for i, doc in enumerate(docs):
        floor = doc["variants"]["f"]
        for name in ratios:
            doc["variants"][name] = copy.deepcopy(floor)
            doc["comparisons"].append({**doc["comparisons"][0], "variant": name})
        for name, entry in doc["variants"].items():
            mode = entry["modes"]["m"]
            mode |= {"compile_seconds": [0.1 * (ratios[name][i] if name in ratios else 1.0)] * 8}
            mode |= {"recompiles": True} if name == "r" else {"measures_compilation": True}
    table = aggregate.comparisons_table([merge(docs) | JOB])
    r = row(table, variant="r", process="all")
    e = moderated.estimate(np.log(ratios["r"]))
    assert (r.compile_ratio, r.compile_ratio_ci_low, r.compile_ratio_ci_high) == pytest.approx(e.as_ratio())
    together = compile_ratios_over_processes(table, {"c": {}})  # no marks: all three pooled
    assert row(together, variant="r", process="all").compile_ratio_ci_high < r.compile_ratio_ci_high * 0.9
