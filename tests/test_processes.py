"""Several fresh processes of one configuration merged into one result: samples kept per process, pooled
summaries, intervals over processes, and a refusal when the processes ran different code."""

from __future__ import annotations

import numpy as np
import pytest

from jaxpitfalls.harness import stats
from jaxpitfalls.harness.processes import ProcessesDisagree, merge
from jaxpitfalls.report import aggregate
from jaxpitfalls.report.claims import row


def _doc(level: float, seed: int, signature: str = "s") -> dict:
    """A minimal per-process result: floor 'f' and variant 'v' = level x floor, one mode."""
    rng = np.random.default_rng(seed)
    floor = list(rng.uniform(9e-3, 11e-3, 8))
    variant = [x * level for x in floor]

    def entry(xs):
        return {"samples_s": xs, "summary": stats.summarize(xs), "compiles_in_timed_region": 0,
                "contended": [False] * len(xs), "calls_per_sample": 3}

    window = {"wall_s": 0.3, "own_cpu_s": 0.3, "others_share": 0.01, "steal_share": 0.0, "rounds": 8,
              "contended": False, "kept": True}
    return {
        "variants": {name: {"modes": {"m": entry(xs)}, "signature": {"code": signature + name}, "calls": 10,
                            "compiles_in_warmup": 1, "first_run": {"seconds": level}}
                     for name, xs in (("f", floor), ("v", variant))},
        "comparisons": [{"variant": "v", "baseline": "f", "mode": "m"} | stats.paired_comparison(variant, floor)],
        "memory": {"m": {"host_peak_bytes": int(100 * level), "device_peak_bytes": None}},
        "machine": {"m": {"measurable": True, "rounds_kept": 8, "rounds_retried": 1, "rounds_contended_kept": 0,
                          "others_share_median": 0.01, "others_share_max": 0.02, "steal_share_median": 0.0,
                          "steal_share_max": 0.0, "waited_s": 1.5 * level,
                          "waits": [{"seconds": 1.5 * level, "quiet_s": 1.0, "quiet": True, "probes": 3}],
                          "own_cpu_per_wall": 1.0, "load_average": [0.5, 0.6], "cpu_mhz": [2600.0, 2600.0],
                          "gc_disabled_in_samples": True, "policy": {}, "yardstick_s": [8e-3 * level] * 8,
                          "places": {"f": [0, 1] * 4, "v": [1, 0] * 4},
                          "windows": [window, window | {"rounds": 1, "contended": True, "kept": False}]}},
        "checks": {key: {"reference": "f", "compared": "bitwise", "values": 3, "outputs": "o",
                         "max_abs_difference": {"f": 0.0, "v": level - 1},
                         "bitwise_equal": {"f": True, "v": level == 1}}
                   for key in ("outputs_agree", "inference_outputs_agree")},  # a study's second agreement (dispatch)
        "structure": {"leaves": 5},
    }


def test_merged_result_keeps_each_process_and_resamples_processes():
    docs = [_doc(1.0, 0), _doc(1.2, 1)]
    merged = merge(docs)
    v = merged["variants"]["v"]
    assert merged["processes"] == 2 and v["calls"] == 20 and v["compiles_in_warmup"] == 2
    for key in ("outputs_agree", "inference_outputs_agree"):  # the worst any process found
        agreement = merged["checks"][key]
        assert agreement["max_abs_difference"]["v"] == pytest.approx(0.2) and agreement["bitwise_equal"] == {
            "f": True, "v": False}
    mode = v["modes"]["m"]
    assert len(mode["samples_s"]) == 16 and [len(p["samples_s"]) for p in mode["processes"]] == [8, 8]
    assert mode["summary"]["n"] == 16 and v["first_run"]["seconds"] == pytest.approx(1.1)
    (c,) = merged["comparisons"]
    assert c["process_ratios"] == pytest.approx([1.0, 1.2])
    assert c["ratio_ci_low"] <= 1.0 + 1e-9 and c["ratio_ci_high"] >= 1.2 - 1e-9
    assert merged["comparisons_by_process"] == [d["comparisons"] for d in docs]
    assert merged["machine"]["m"]["rounds_kept"] == 16 and merged["machine"]["m"]["rounds_retried"] == 2
    assert merged["machine"]["m"]["yardstick_s"] == [8e-3] * 8 + [8e-3 * 1.2] * 8  # in the order of the samples
    assert merged["machine"]["m"]["places"] == {"f": [0, 1] * 8, "v": [1, 0] * 8}
    assert merged["machine"]["m"]["waited_s"] == pytest.approx(1.5 + 1.8) and len(merged["machine"]["m"]["waits"]) == 2
    assert merged["memory"]["m"]["host_peak_bytes"] == 120 and merged["structure"] == {"leaves": 5}


def test_one_process_is_its_own_result():
    doc = _doc(1.0, 0)
    assert merge([doc]) is doc


def test_processes_that_ran_different_code_are_refused():
    with pytest.raises(ProcessesDisagree, match="process 1 ran another code path"):
        merge([_doc(1.0, 0), _doc(1.0, 1, signature="other")])


def test_a_mode_timed_step_by_step_keeps_each_process_s_steps_and_its_split_resamples_processes():
    """The split's interval spans what the processes saw: one process spends 20% in `a`, the other 40%."""
    docs = [_doc(1.0, 0), _doc(1.0, 1)]
    for doc, a in zip(docs, (0.2, 0.4), strict=True):
        doc["variants"]["v"]["modes"]["m"]["step_seconds"] = {"a": [a] * 10, "b": [1 - a] * 10}
    mode = merge(docs)["variants"]["v"]["modes"]["m"]
    assert mode["step_seconds"]["a"] == [0.2] * 10 + [0.4] * 10
    assert [p["step_seconds"]["a"] for p in mode["processes"]] == [[0.2] * 10, [0.4] * 10]
    rows = aggregate.steps_table([merge(docs) | {"config_id": "c", "config": {"id": "c", "model": "m", "axes": []}}])
    pooled, first = (row(rows, variant="v", process=p) for p in ("all", "0"))
    assert pooled.step_a_share_ci_low == pytest.approx(0.2) and pooled.step_a_share_ci_high == pytest.approx(0.4)
    assert first.step_a_share == pytest.approx(0.2) and first.step_b_ms == pytest.approx(800)


def test_every_process_s_finding_is_kept_and_an_interval_spans_them_all():
    docs = [_doc(1.0, 0), _doc(1.0, 1), _doc(1.0, 2)]
    for doc, (low, mid, high, matched) in zip(docs, ((0.9, 0.95, 1.0, 0), (0.5, 0.6, 0.7, 1), (0.92, 0.96, 1.01, 0)),
                                               strict=True):
        doc["checks"]["findings"] = {"probe": {"share": mid, "share_ci_low": low, "share_ci_high": high,
                                               "matched_compiles": matched, "returned": "numpy.ndarray"}}
    merged = merge(docs)["checks"]["findings"]["probe"]
    assert merged == {"share": 0.95, "share_ci_low": 0.5, "share_ci_high": 1.01, "matched_compiles": 0.0,
                      "returned": "numpy.ndarray"}
