"""The studies' own intervals checked where the truth is known (report/calibration/study_intervals.py): the
floors' A/A twins over every subset of a job's processes, and rows simulated from the spread between processes
the job measured."""

from __future__ import annotations

import numpy as np
from results_docs import process_doc

from jaxpitfalls.harness import stats
from jaxpitfalls.harness.processes import merge
from jaxpitfalls.report.calibration.study_intervals import simulated_coverage, twin_coverage


def _with_twin(doc: dict, seed: int) -> dict:
    """A process's result with its floor timed a second time in the same rounds, 1% noise a sample apart."""
    floor = doc["variants"]["f"]
    samples = list(np.asarray(floor["modes"]["m"]["samples_s"])
                   * np.exp(0.01 * np.random.default_rng(seed).standard_normal(8)))
    twin = stats.twin_side("f")
    doc["variants"][twin] = floor | {"twin_of": "f", "modes": {"m": floor["modes"]["m"] | {
        "samples_s": samples, "summary": stats.summarize(samples)}}}
    doc["comparisons"].append({"variant": twin, "baseline": "f", "mode": "m"}
                              | stats.paired_comparison(samples, floor["modes"]["m"]["samples_s"]))
    return doc


def test_twins_are_counted_over_every_subset_of_a_jobs_processes():
    doc = merge([_with_twin(process_doc(level, seed) | {"config_id": "c"}, seed)
                 for seed, level in enumerate((1.0, 1.1, 1.3))])
    found = twin_coverage([doc]).set_index("processes")
    assert found.rows.to_dict() == {2: 3, 3: 1}  # three pairs of the three processes, and all three
    assert (found.covered <= found.rows).all() and (found.share_low <= found.share).all()


def test_rows_simulated_from_a_jobs_spread_are_covered_near_95_percent():
    doc = merge([process_doc(level, seed) | {"config_id": "c"} for seed, level in enumerate((1.0, 1.1, 1.3))])
    found = simulated_coverage([doc]).set_index("processes")
    assert found.rows.to_dict() == {2: 400, 3: 400, 5: 400}  # one row (v / f), 400 simulated jobs each
    assert ((found.share > 0.91) & (found.share < 0.99)).all(), found
