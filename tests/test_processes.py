"""Several fresh processes of one configuration merged into one result: samples kept per process, pooled
summaries, intervals over processes, and a refusal when the processes ran different code."""

from __future__ import annotations

import pytest
from results_docs import process_doc
from scipy.special import expit, logit
from scipy.stats import t

from jaxpitfalls.contract.decisions import row
from jaxpitfalls.harness import moderated
from jaxpitfalls.harness.processes import ProcessesDisagree, merge
from jaxpitfalls.report.tables import aggregate


def test_merged_result_keeps_each_process_and_resamples_processes():
    docs = [process_doc(1.0, 0), process_doc(1.2, 1)]
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
    assert merged["machine"]["m"]["sampled_s"] == pytest.approx({"f": 1.0, "v": 0.5 + 0.6})  # the processes' summed
    assert merged["machine"]["m"]["rounds_s"] == pytest.approx(1.25 + 1.5)
    assert merged["machine"]["m"]["waited_s"] == pytest.approx(1.5 + 1.8) and len(merged["machine"]["m"]["waits"]) == 2
    assert merged["memory"]["m"]["host_peak_bytes"] == 120 and merged["structure"] == {"leaves": 5}


def test_one_process_is_its_own_result_its_differences_read_off_its_ratios():
    doc = process_doc(1.2, 0)
    merged = merge([doc])
    assert {k: v for k, v in merged.items() if k != "comparisons"} == {k: v for k, v in doc.items()
                                                                       if k != "comparisons"}
    (found,), (own,) = merged["comparisons"], doc["comparisons"]
    assert found["ratio"] == own["ratio"] and found["diff"] == pytest.approx(own["diff"])  # a plain pair: as it was


def test_what_processes_chose_apart_is_said_whole():
    """extraction's processes each choose where their passes store: a job whose processes chose apart says both;
    a size that differs is another workload, refused."""
    docs = [process_doc(1.0, 0), process_doc(1.0, 1)]
    for doc, storage in zip(docs, ("memory", "temp dir"), strict=True):
        doc["structure"] |= {"storage": storage}
    assert merge(docs)["structure"] == {"leaves": 5, "storage": "memory / temp dir"}
    docs[1]["structure"]["leaves"] = 6  # another workload altogether: refused
    with pytest.raises(ProcessesDisagree, match="structure 'leaves'"):
        merge(docs)


def test_processes_that_ran_different_code_are_refused():
    with pytest.raises(ProcessesDisagree, match="process 1 ran another code path"):
        merge([process_doc(1.0, 0), process_doc(1.0, 1, signature="other")])


def test_processes_whose_same_code_path_lowered_to_another_text_are_merged_saying_so():
    """A history's job lost to a guard: process 4 of 5 'ran another code path' for jit_partition where callable,
    argument tree and leaves agreed and only the lowered program text's fingerprint differed (62ce0a432f52f47b
    against be731d19fe62b151). The code path decides; the texts are kept in the checks."""
    docs = [process_doc(1.0, 0), process_doc(1.0, 1)]
    for doc, program in zip(docs, ("62ce0a432f52f47b", "be731d19fe62b151"), strict=True):
        doc["variants"]["v"]["signature"] |= {"program": program, "infer": {"program": program + "i", "leaves": 3}}
    merged = merge(docs)
    assert merged["checks"]["programs_lowered_apart"] == {"v": [
        {"program": "62ce0a432f52f47b", "infer.program": "62ce0a432f52f47bi"},
        {"program": "be731d19fe62b151", "infer.program": "be731d19fe62b151i"}]}
    docs[1]["variants"]["v"]["signature"]["infer"]["leaves"] = 4  # a leaf more: another code path after all
    with pytest.raises(ProcessesDisagree, match="process 1 ran another code path for 'v'"):
        merge(docs)


def test_a_variants_program_plan_stays_whole_bytes_the_largest_any_process_compiled():
    docs = [process_doc(1.0, 0), process_doc(1.0, 1)]
    plans = [{"total_bytes": peak, "argument_bytes": 3, "output_bytes": 5, "donated_bytes": 0, "temporary_bytes": 7,
              "programs": 1} for peak in (9, 10)]
    for doc, plan in zip(docs, plans, strict=True):
        doc["variants"]["v"]["program_memory"] = plan
    merged = merge(docs)
    assert merged["variants"]["v"]["program_memory"] == plans[1]  # not a mean's floats
    assert merged["checks"]["program_plans_apart"] == {"v": [9, 10]}  # another plan in one process: said
    assert "program_memory" not in merged["variants"]["f"]
    del docs[0]["variants"]["v"]["program_memory"]  # the first process kept none: the other's stands
    assert merge(docs)["variants"]["v"]["program_memory"] == plans[1]


def test_a_variants_optimized_programs_and_host_outputs_are_kept_only_where_every_process_agrees():
    """A GPU's autotuning may build one program apart in two processes, or one process read none: then unknown."""
    docs = [process_doc(1.0, 0), process_doc(1.0, 1)]
    for doc in docs:
        doc["variants"]["v"] |= {"executable": "0123456789abcdef", "returns_host": True}
    assert {k: merge(docs)["variants"]["v"][k] for k in ("executable", "returns_host")} == {
        "executable": "0123456789abcdef", "returns_host": True}
    docs[1]["variants"]["v"]["executable"] = "fedcba9876543210"
    del docs[1]["variants"]["v"]["returns_host"]
    assert not {"executable", "returns_host"} & set(merge(docs)["variants"]["v"])


def test_a_mode_timed_step_by_step_keeps_each_process_s_steps_and_its_split_is_judged_over_processes():
    """One process spends 20% in `a`, the other 40%: the job's share is their mean on the logit scale, its interval
    Student's t on the spread between the processes, the steps' spreads pooled (moderated.pooled_apart; `b`'s, the
    mirror image, counts at most half its degree of freedom): far wider than what the two processes saw."""
    docs = [process_doc(1.0, 0), process_doc(1.0, 1)]
    for doc, a in zip(docs, (0.2, 0.4), strict=True):
        doc["variants"]["v"]["modes"]["m"]["step_seconds"] = {"a": [a] * 10, "b": [1 - a] * 10}
    mode = merge(docs)["variants"]["v"]["modes"]["m"]
    assert mode["step_seconds"]["a"] == [0.2] * 10 + [0.4] * 10
    assert [p["step_seconds"]["a"] for p in mode["processes"]] == [[0.2] * 10, [0.4] * 10]
    rows = aggregate.steps_table([merge(docs) | {"config_id": "c", "config": {"id": "c", "model": "m", "axes": []}}])
    pooled, first = (row(rows, variant="v", process=p) for p in ("all", "0"))
    assert pooled.step_a_share == pytest.approx(expit((logit(0.2) + logit(0.4)) / 2))
    a, _ = moderated.pooled_apart(logit([[0.2, 0.4], [0.8, 0.6]]))
    assert (pooled.step_a_share_ci_low, pooled.step_a_share_ci_high) == pytest.approx(expit([a.low, a.high]))
    assert a.df == 1.5 and a.high - a.mean > t.ppf(0.975, 1.5) * abs(logit(0.4) - logit(0.2)) / 2
    assert pooled.step_a_share_ci_low < 0.05 and pooled.step_a_share_ci_high > 0.9
    assert first.step_a_share == pytest.approx(0.2) and first.step_b_ms == pytest.approx(800)


def test_every_process_s_finding_is_kept_and_an_interval_spans_them_all():
    docs = [process_doc(1.0, 0), process_doc(1.0, 1), process_doc(1.0, 2)]
    for doc, (low, mid, high, matched) in zip(docs, ((0.9, 0.95, 1.0, 0), (0.5, 0.6, 0.7, 1), (0.92, 0.96, 1.01, 0)),
                                               strict=True):
        doc["checks"]["findings"] = {"probe": {"share": mid, "share_ci_low": low, "share_ci_high": high,
                                               "matched_compiles": matched, "returned": "numpy.ndarray"}}
    merged = merge(docs)["checks"]["findings"]["probe"]
    assert merged == {"share": 0.95, "share_ci_low": 0.5, "share_ci_high": 1.01, "matched_compiles": 0.0,
                      "returned": "numpy.ndarray"}


def test_a_call_that_traces_every_time_may_count_its_python_calls_apart_but_no_other_call_may():
    """A variant compiling in every call (RECOMPILES) goes through tracing's Python, whose calls, and now and then
    the functions, vary from process to process; a call that does not trace keeps its count, which tells a Python
    loop of jitted calls from one call."""
    docs = [process_doc(1.0, 0), process_doc(1.0, 1)]
    for doc, calls, python in zip(docs, (2998, 3007), ("3e7f", "1766"), strict=True):
        doc["variants"]["v"]["signature"] |= {"python_calls": calls, "python": python, "retraces": True}
    merged = merge(docs)
    assert merged["processes"] == 2 and "programs_lowered_apart" not in merged["checks"]  # one program, lowered alike
    for doc in docs:
        del doc["variants"]["v"]["signature"]["retraces"]
    with pytest.raises(ProcessesDisagree, match="process 1 ran another code path for 'v'"):
        merge(docs)


@pytest.mark.parametrize("group", ["recompiles", "compiling"])
def test_a_variant_compiling_in_its_samples_pools_apart_from_the_steady_rows(group):
    """Beside a variant compiling in every call (RECOMPILES) or in every sample (a first run): a ratio of 100x
    moving tens of percent between processes, a steady row's interval is what the steady rows give alone (a user's
    walk: four processes within 2% read +-7.9% beside first runs; docs/decisions.md)."""
    from jaxpitfalls.harness.pooled import pool_group, pooled_intervals

    steady = [("a", "f", "blocked"), ("b", "f", "blocked")]
    ratios = [[1.10, 1.16, 1.21], [0.95, 0.97, 0.99]]
    medians = {(v, "blocked"): 1e-3 for v in ("a", "b", "f", "r")}
    alone = pooled_intervals(steady, ratios, [[0.0] * 3] * 2, medians)
    pairs, with_r = [*steady, ("r", "f", "blocked")], [*ratios, [90.0, 140.0, 110.0]]
    beside = pooled_intervals(pairs, with_r, [[0.0] * 3] * 3, medians)
    apart = pooled_intervals(pairs, with_r, [[0.0] * 3] * 3, medians, {("r", "blocked"): group})
    width = {name: found[0]["ratio_ci_high"] / found[0]["ratio_ci_low"] for name, found in
             (("alone", alone), ("beside", beside), ("apart", apart))}
    assert apart[:2] == alone and width["beside"] > width["apart"]
    assert apart[2]["ratio_ci_low"] < 110 < apart[2]["ratio_ci_high"]  # its own spread, on its own
    entry = {"recompiles": {"recompiles": True, "demonstration": True}, "compiling": {"measures_compilation": True}}
    assert pool_group(entry[group]) == group and pool_group({"measures_compilation": float("nan")}) == "steady"
