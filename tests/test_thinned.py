"""A finished run judged as if it had measured less (reference/thinned.py): the cut of a merged result is the
result its kept processes and rounds would have merged into, a budget keeps the rounds that started within it at the
pace the run's windows recorded, and a cut it cannot make is refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from results_docs import process_doc

from jaxpitfalls.across_runs.reference.thinned import Cut, rounds_kept, thin
from jaxpitfalls.harness import stats
from jaxpitfalls.harness.pooled import pooled_intervals
from jaxpitfalls.harness.processes import merge
from jaxpitfalls.report.tables import aggregate

RATIO = ("ratio", "ratio_ci_low", "ratio_ci_high", "diff", "diff_ci_low", "diff_ci_high")


def _docs(*levels: float) -> list[dict]:
    return [process_doc(level, seed) | {"config_id": "c"} for seed, level in enumerate(levels)]


def _samples(doc: dict, name: str) -> list[float]:
    return doc["variants"][name]["modes"]["m"]["samples_s"]


def test_keeping_some_processes_gives_the_result_of_merging_only_them():
    docs = _docs(1.0, 1.1, 1.3)
    thinned, expected = thin(merge(docs), Cut(processes=(0, 2))), merge([docs[0], docs[2]])
    assert thinned["processes"] == 2
    assert _samples(thinned, "v") == _samples(expected, "v") and _samples(thinned, "f") == _samples(expected, "f")
    (got,), (want,) = thinned["comparisons"], expected["comparisons"]
    assert [got[k] for k in RATIO] == pytest.approx([want[k] for k in RATIO])
    assert got["process_ratios"] == pytest.approx([1.0, 1.3])
    assert [c["ratio"] for (c,) in thinned["comparisons_by_process"]] == pytest.approx([1.0, 1.3])
    assert thinned["machine"]["m"]["places"] == expected["machine"]["m"]["places"]
    assert thinned["machine"]["m"]["yardstick_s"] == expected["machine"]["m"]["yardstick_s"]


def test_the_tables_of_a_cut_result_are_those_its_kept_processes_make():
    docs = _docs(1.0, 1.1, 1.3)
    for doc, a in zip(docs, (0.2, 0.3, 0.4), strict=True):  # a mode timed step by step: its calls' split
        doc["variants"]["v"]["modes"]["m"]["step_seconds"] = {"a": [a] * 8, "b": [1 - a] * 8}
    config = {"config": {"id": "c", "model": "m", "axes": []}}
    cut, expected = thin(merge(docs), Cut(processes=(1, 2))) | config, merge(docs[1:]) | config
    for table in (aggregate.steps_table, aggregate.comparisons_table):
        got, want = table([cut]), table([expected])
        whole = [c for c in got if c.startswith("first_run")]  # a job's first runs: kept whole, not per process
        assert whole or table is aggregate.comparisons_table
        pd.testing.assert_frame_equal(got.drop(columns=whole), want.drop(columns=whole))


def test_keeping_the_first_rounds_keeps_every_process_paired():
    docs = _docs(1.0, 1.2)
    thinned = thin(merge(docs), Cut(rounds=5))
    entry = thinned["variants"]["v"]["modes"]["m"]
    assert [p["samples_s"] for p in entry["processes"]] == [_samples(d, "v")[:5] for d in docs]
    assert entry["summary"]["n"] == 10 and len(entry["contended"]) == 10
    (got,) = thinned["comparisons"]
    heads = {name: [_samples(d, name)[:5] for d in docs] for name in ("v", "f")}
    own = [stats.paired_comparison(v, f) for v, f in zip(heads["v"], heads["f"], strict=True)]
    medians = {(n, "m"): float(np.exp(np.log(np.median(heads[n], axis=1)).mean())) for n in ("v", "f")}
    (want,) = pooled_intervals([("v", "f", "m")], [[o["ratio"] for o in own]], [[o["diff"] for o in own]], medians)
    assert [got[k] for k in RATIO] == pytest.approx([want[k] for k in RATIO])
    record = thinned["machine"]["m"]
    assert record["places"] == {"f": [0, 1, 0, 1, 0] * 2, "v": [1, 0, 1, 0, 1] * 2} and record["rounds_kept"] == 10
    assert [w["rounds"] for w in record["windows"] if w["kept"]] == [5, 5]
    # the walls, summed without a process's own, shared out evenly over the processes and by the rounds kept
    assert record["sampled_s"] == pytest.approx({"f": 1.0 * 5 / 8, "v": (0.5 + 0.6) * 5 / 8})
    assert record["rounds_s"] == pytest.approx((1.25 + 1.5) * 5 / 8)


def test_a_budget_keeps_the_rounds_started_within_it_and_never_fewer_than_two():
    walls = [1.0] * 6
    assert rounds_kept(walls, Cut(budget=2.5)) == 3  # rounds start at 0, 1 and 2 s; the fourth would at 3 s
    assert rounds_kept(walls, Cut(budget=0.1)) == 2
    assert rounds_kept(walls, Cut(budget=2.5, rounds=2)) == 2
    assert rounds_kept(walls, Cut()) == 6
    # process_doc's window: 8 rounds in 0.3 s (the re-timed one spends none of the budget)
    thinned = thin(merge(_docs(1.0, 1.2)), Cut(budget=0.1))
    assert [len(p["samples_s"]) for p in thinned["variants"]["f"]["modes"]["m"]["processes"]] == [3, 3]


def test_a_cut_it_cannot_make_is_refused_saying_what_it_takes():
    assert Cut.parse("processes=0+2,budget=15") == Cut(processes=(0, 2), budget=15.0)
    with pytest.raises(ValueError, match="a cut is processes=0"):
        Cut.parse("repeats=3")
    with pytest.raises(ValueError, match=r"c: processes \(3,\) of 2"):
        thin(merge(_docs(1.0, 1.2)), Cut(processes=(3,)))
    with pytest.raises(ValueError, match="one process keeps no per-process samples"):
        thin(_docs(1.0)[0], Cut(rounds=2))
