"""The dispatch study's claims on known numbers. Compute independence: judged on the write-up's compute axis
(dropout, attention implementation) timed in the base's job, each setting's overhead shift against the base's
round by round, within a quarter of the base's overhead; a setting of sizes (hidden) is shown beside the verdict
and never decides it. The pytree-size dependence: read over the base timed in the deeper configuration's own job, so a
machine that drifts between jobs neither makes nor hides it."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from hand_tables import run_on

from jaxpitfalls.contract.decisions import applicable
from jaxpitfalls.contract.judging import Run
from jaxpitfalls.harness.stats import difference_side
from jaxpitfalls.studies.dispatch.claims import (
    JUDGES,
    _attribution_complete,
    _every_call,
    _flattening_left,
    _inference_ok,
    _not_compute,
    _partition_free,
    _pipelining,
    _structure,
    _where,
)
from jaxpitfalls.studies.dispatch.spec import ANCHOR_PAIR, BESIDE, LEFT_SHARE, SPEC, beside_name

BASE = {"layers": 12, "hidden": 64, "batch": 2, "seq": 32, "dropout": 0.1, "attention": "explicit"}
BASE_STEPS = pd.DataFrame([{**BASE, "config_id": "base"}])  # the base's shape: BERT-base's pytree at hidden 64
SUPPORTING = " (BERT-base's 12-layer pytree at hidden 64, not its 768: supporting only)"  # decided there, labelled


def _overhead(config_id: str, ms: tuple[float, float, float], pair=("filter_jit", "jit_partition"), **conf) -> dict:
    """One blocked comparison row of `pair` at `config_id`: its difference (ms) and 95% interval."""
    return {**BASE, **conf, "config_id": config_id, "variant": pair[0], "baseline": pair[1], "mode": "blocked",
            "diff_ms": ms[0], "diff_ci_low_ms": ms[1], "diff_ci_high_ms": ms[2]}


def _run(shifts: dict[tuple[tuple[str, object], ...], tuple[float, float, float]]) -> Run:
    """The base's filter_jit - jit_partition at 8 ms [7, 9]; each setting of dropout or attention timed in the
    base's job (`beside`): its overhead minus the base's, round by round, as given; a setting of sizes: its own
    job's overhead as given."""
    rows = [_overhead("base", (8.0, 7.0, 9.0))]
    for i, (setting, ms) in enumerate(shifts.items()):
        if setting == BERT_BASE_WIDTH:
            rows.append(_overhead(f"setting{i}", ms, **dict(setting)))
        else:
            pair = (difference_side(*(beside_name(v, dict(setting)) for v in BESIDE)), difference_side(*BESIDE))
            rows.append(_overhead("base", ms, pair))
    return run_on(SPEC, "base", comparisons=pd.DataFrame(rows), steps=BASE_STEPS)


DROPOUT_OFF, SDPA = (("dropout", 0.0),), (("dropout", 0.0), ("attention", "fused"))
BERT_BASE_WIDTH = (("hidden", 768),)


@pytest.mark.parametrize(("shifts", "expected"), [
    ({DROPOUT_OFF: (0.2, -0.5, 0.9), SDPA: (-0.1, -0.9, 0.7)}, "reproduced"),  # the write-up's 47.2 vs 46.9 ms
    ({DROPOUT_OFF: (0.2, -0.5, 0.9), SDPA: (8.0, 7.0, 9.0)}, "not reproduced"),  # fused attention doubles it
    ({DROPOUT_OFF: (0.2, -5.8, 6.2)}, "inconclusive"),  # a shift of +-6 ms cannot tell inside +-2 ms
    ({DROPOUT_OFF: (0.2, -0.5, 0.9), BERT_BASE_WIDTH: (15.0, -84.0, 114.0)}, "reproduced"),  # sizes: shown only
    ({BERT_BASE_WIDTH: (8.0, 7.5, 8.5)}, "not measured"),  # no dropout or attention setting: nothing to judge
    ({DROPOUT_OFF: (0.2, -2.5, 2.9), SDPA: (0.2, -5.8, 6.2)}, "inconclusive"),  # both across: the widest said
])
def test_compute_independence_is_judged_on_the_write_up_s_dropout_and_attention_only(shifts, expected):
    judged = applicable(_not_compute(_run(shifts)))
    assert judged.verdict == expected, judged.measured
    if expected != "not measured":  # judged at the base: BERT-base's pytree at hidden 64, labelled
        assert f"over the base's 8.000 ms [7.000, 9.000]{SUPPORTING}, paired round by round" in judged.measured
    if BERT_BASE_WIDTH in shifts:
        assert "not judged (separate jobs: the machine's drift is in their difference): hidden 768:" in judged.measured
        assert "the hidden 768 shift" not in judged.measured  # no reason to decide what nothing judges
    # an undecided verdict says what would decide each undecided setting; a decided one says nothing more
    assert ("undecided: the dropout0 shift crosses" in judged.measured) == (
        expected == "inconclusive" and set(shifts) == {DROPOUT_OFF})
    if len(shifts) == 2 and expected == "inconclusive":  # the other setting across the band is named too
        assert "undecided: the dropout0-attentionfused shift crosses" in judged.measured
        assert judged.measured.endswith("(across the band too: dropout0)")
    if len(shifts) == 1 and BERT_BASE_WIDTH in shifts:
        assert judged.measured.startswith("not measured: the config times no dropout or attention setting beside")
    if expected == "reproduced":
        assert "dropout0: 0.200 ms [-0.500, 0.900]" in judged.measured and "band +-2.000 ms" in judged.measured


# the configuration's overhead over the base's, round by round in its job (dispatch.anchored.beside_base)
CONTRAST = (difference_side(*BESIDE), difference_side(*ANCHOR_PAIR))


def _structure_run(speed: float, deeper: float, shallow: tuple[float, float] | None = None) -> Run:
    """The base (12 layers, 200 leaves) with 8 ms [7.5, 8.5] of overhead, and a 24-layer job (392 leaves) that
    ran `speed` times as slow, its true overhead `deeper` ms: its own and the base's, both as it timed them;
    `shallow`: a 2-layer job (40 leaves) too, its (speed, true overhead)."""
    jobs = {"deep": (24, 392, speed, deeper)} | ({"shallow": (2, 40, *shallow)} if shallow else {})
    axes = {"base": "layers,hidden,batch,seq,dropout,attention"} | dict.fromkeys(jobs, "layers")
    rows, steps = [_overhead("base", (8.0, 7.5, 8.5), axes=axes["base"])], [("base", 12, 200)]
    for c, (layers, leaves, drift, true_ms) in jobs.items():
        rows += [_overhead(c, tuple(drift * ms for ms in (true_ms, true_ms - 0.5, true_ms + 0.5)), layers=layers,
                           axes=axes[c]),
                 _overhead(c, tuple(drift * ms for ms in (8.0, 7.5, 8.5)), ANCHOR_PAIR, layers=layers, axes=axes[c]),
                 _overhead(c, tuple(drift * (true_ms - 8.0 + ms) for ms in (0.0, -0.7, 0.7)), CONTRAST,
                           layers=layers, axes=axes[c])]
        steps.append((c, layers, leaves))
    steps = pd.DataFrame([{**BASE, "config_id": c, "layers": layers, "variant": "filter_jit", "mode": "blocked",
                           "structure_model_leaves": leaves, "axes": axes[c]} for c, layers, leaves in steps])
    return run_on(SPEC, "base", comparisons=pd.DataFrame(rows), steps=steps)


def test_the_pytree_size_dependence_is_judged_at_the_depth_farthest_from_the_base_and_lists_the_others():
    """The reference's shape: 2 and 24 layers around a 12-layer base. At 2 layers the base has more leaves: the
    growth is the base's overhead minus the shallow one's, from the shallow job."""
    judged = applicable(_structure(_structure_run(1.0, 16.0, shallow=(1.5, 2.0))))
    assert judged.verdict == "reproduced", judged.measured
    assert judged.measured.startswith("filter_jit - jit_partition 8.000 ms [7.500, 8.500] at 200 leaves (the base) "
                                      "-> 16.000 ms [15.500, 16.500] at 392 leaves")
    # the shallow job ran 1.5x slow: 3 ms against the base's 12 ms there, +9 ms from 40 to 200 leaves
    assert "; 3.000 ms [2.250, 3.750] at 40 leaves -> 12.000 ms [11.250, 12.750] at 200 leaves (the base): +9.000 ms" \
        in judged.measured
    only_shallow = _structure_run(1.0, 16.0, shallow=(1.5, 2.0))
    comp, steps = (only_shallow.tables[t] for t in ("comparisons", "steps"))
    shallow = _structure(run_on(SPEC, "base", comparisons=comp[comp.config_id != "deep"],
                                steps=steps[steps.config_id != "deep"]))
    assert shallow.measured.startswith("filter_jit - jit_partition 3.000 ms [2.250, 3.750] at 40 leaves -> 12.000 ms")
    assert "+9.000 ms" in shallow.measured and "no rate per leaf from one pair" in shallow.measured


@pytest.mark.parametrize(("speed", "deeper", "expected"), [
    (1.6, 8.0, "inconclusive"),  # no growth, the deep job 1.6x slow: unpaired it read +4.8 ms
    (0.6, 16.0, "reproduced"),  # the overhead doubles, the deep job 0.6x as slow: unpaired it read +1.6 ms
    (1.0, 4.0, "not reproduced"),  # fewer milliseconds at more leaves
])
def test_the_pytree_size_dependence_is_read_over_the_base_timed_in_the_same_job(speed, deeper, expected):
    judged = applicable(_structure(_structure_run(speed, deeper)))
    assert judged.verdict == expected, judged.measured
    growth = speed * (deeper - 8.0)
    assert judged.measured.startswith(f"filter_jit - jit_partition {speed * 8:.3f} ms") and \
        f"at 200 leaves (the base) -> {speed * deeper:.3f} ms" in judged.measured and f"{growth:+.3f} ms" in \
        judged.measured, judged.measured


def test_the_pytree_size_dependence_is_not_judged_without_the_base_in_the_same_job():
    run = _structure_run(1.0, 16.0)
    unpaired = run.tables["comparisons"][run.tables["comparisons"].variant == "filter_jit"]
    judged = _structure(run_on(SPEC, "base", comparisons=unpaired, steps=run.tables["steps"]))
    assert judged.verdict == "not measured" and judged.measured.startswith("not measured: no configuration of the "
                                                                            "layers axis was timed beside the base")


def test_a_result_written_before_differences_were_compared_still_reads_its_anchor():
    """A published snapshot's tables hold each job's two pairs but no difference of them: rejudging it combines
    the two intervals (wider) instead of failing."""
    run = _structure_run(1.0, 16.0)
    comp = run.tables["comparisons"]
    judged = _structure(run_on(SPEC, "base", comparisons=comp[comp.variant != CONTRAST[0]], steps=run.tables["steps"]))
    assert judged.verdict == "reproduced" and "+8.000 ms" in judged.measured, judged.measured


def _slower_run(wide: tuple[float, float, float]) -> Run:
    """filter_jit / jit_partition at the base (hidden 64: +1.0 ms [0.8, 1.2] on a 20 ms step) and at BERT-base's
    width (hidden 768, the same pytree) with a 950 ms step and the ratio `wide`."""
    rows = [{**BASE, "config_id": "base", "axes": "layers,hidden,batch,seq,dropout,attention", "ratio": 1.05,
             "ratio_ci_low": 1.04, "ratio_ci_high": 1.06, "diff_ms": 1.0, "diff_ci_low_ms": 0.8,
             "diff_ci_high_ms": 1.2},
            {**BASE, "hidden": 768, "config_id": "wide", "axes": "hidden", "ratio": wide[0], "ratio_ci_low": wide[1],
             "ratio_ci_high": wide[2], "diff_ms": 0.5, "diff_ci_low_ms": -9.0, "diff_ci_high_ms": 10.0}]
    comp = pd.DataFrame(rows).assign(variant="filter_jit", baseline="jit_partition", mode="blocked")
    steps = pd.DataFrame([{"config_id": c, "variant": v, "mode": "blocked", "median_ms": ms, "median_ci_low_ms": ms,
                           "median_ci_high_ms": ms} for c, step in (("base", 20.0), ("wide", 950.0))
                          for v, ms in (("jit_partition", step), ("filter_jit", step + 1.0))])
    return run_on(SPEC, "base", comparisons=comp, steps=steps)


@pytest.mark.parametrize(("wide", "expected"), [
    ((0.99, 0.98, 1.00), "not testable"),  # 1.2 ms on a 950 ms step: at most 1.0013x, inside +-0.01
    ((1.01, 1.00, 1.02), "not testable"),  # even an interval above 1 cannot show what the base's overhead bounds
    ((0.9992, 0.9990, 0.9995), "not testable"),  # a narrow interval too: the hardware cannot show the 1.23x claimed
])
def test_filter_jit_s_overhead_at_bert_base_width_is_not_testable_where_the_step_hides_it(wide, expected):
    judged = applicable(JUDGES.one(_slower_run(wide), "slower"))  # the engine holds the bound to the claimed size
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith("not testable on this hardware: the base's overhead (at most "
                                      "1.20 ms) on a 950 ms step gives at most 1.001x")
    assert "below the 1.23x the claim needs" in judged.measured
    assert judged.headline.value == wide[0]  # its own number still shown, whichever side of 1 it lies
    # the scorecard's cell gives the base's reading first: a shorter step, where filter_jit's overhead shows
    assert judged.headline.what == ("filter_jit / jit_partition at the base (a shorter step) 1.050x [1.040, 1.060]; "
                                    "nearest the write-up's structure:")


def test_a_claim_at_a_base_shallower_than_bert_base_says_so():
    """The default config's base is one layer at hidden 64: not BERT-base's pytree at another width."""
    comp = pd.DataFrame([{**BASE, "layers": 1, "config_id": "base", "diff_ms": 0.8, "diff_ci_low_ms": 0.6,
                          "diff_ci_high_ms": 1.0, "variant": "filter_jit", "baseline": "jit_partition",
                          "mode": "blocked"}])
    steps = pd.DataFrame([{**BASE, "layers": 1, "config_id": "base"}])
    judged = _every_call(run_on(SPEC, "base", comparisons=comp, steps=steps))
    said = "at base (depth 1, not BERT-base's 12 layers: supporting only): over 1000 steps"
    assert said in judged.measured


@pytest.mark.parametrize(("gap", "expected"), [
    ((0.8, 0.6, 1.0), "reproduced"),  # every warm step pays 0.8 ms: 0.8 s over 1000 steps
    ((0.1, -0.3, 0.5), "inconclusive"),
    ((-0.5, -0.8, -0.2), "not reproduced"),  # warm filter_jit steps cheaper: nothing compounds
])
def test_the_overhead_compounds_where_every_warm_step_pays_it(gap, expected):
    comp = pd.DataFrame([{**BASE, "config_id": "base", "diff_ms": gap[0], "diff_ci_low_ms": gap[1],
                          "diff_ci_high_ms": gap[2]}]).assign(variant="filter_jit", baseline="jit_partition",
                                                              mode="blocked")
    judged = applicable(_every_call(run_on(SPEC, "base", comparisons=comp, steps=BASE_STEPS)))
    assert judged.verdict == expected, judged.measured
    assert f"at base{SUPPORTING}: over 1000 steps {gap[0]:.3f} s [{gap[1]:.3f}, {gap[2]:.3f}]" in judged.measured


def test_a_claim_at_bert_base_s_pytree_but_not_its_width_is_labelled_and_not_counted_at_its_structure():
    """The reference's base: BERT-base's 12 layers at hidden 64, traced; its 768-wide configuration too."""
    configs = {"base": 64, "wide": 768}
    steps = pd.DataFrame([{**BASE, "config_id": c, "hidden": h, "variant": "filter_jit", "mode": "blocked",
                           "structure_model_leaves": 200, "axes": "layers,hidden" if c == "base" else "hidden"}
                          for c, h in configs.items()])
    comp = pd.DataFrame([{**BASE, "config_id": c, "hidden": h, "axes": "layers,hidden" if c == "base" else "hidden",
                          "variant": "filter_jit", "baseline": "jit_partition", "mode": "blocked"}
                         for c, h in configs.items()])
    overhead = pd.DataFrame([{"config_id": "base", "mode": "blocked", "variant": "filter_jit", "component": c,
                              "inclusive_ms": ms} for c, ms in (("_preprocess", 0.6), ("_postprocess", 1.4))])
    judged = _where(run_on(SPEC, "base", comparisons=comp, steps=steps, overhead=overhead))
    assert judged.verdict == "reproduced" and judged.ours == (None, None, None)  # the share, the two traced steps
    assert "(BERT-base's 12-layer pytree at hidden 64, not its 768: supporting only)" in judged.measured
    # traced at the whole shape too (a reference run: 5.30 + 17.66 ms): judged there, and counted
    wide = pd.DataFrame([{"config_id": "wide", "mode": "blocked", "variant": "filter_jit", "component": c,
                          "inclusive_ms": ms} for c, ms in (("_preprocess", 5.30), ("_postprocess", 17.66))])
    judged = _where(run_on(SPEC, "base", comparisons=comp, steps=steps, overhead=pd.concat([overhead, wide])))
    assert judged.measured == "_preprocess 23%, _postprocess 77% (traced: 5.300 ms + 17.660 ms per step at wide)"
    assert judged.ours[0][0] == pytest.approx(100 * 17.66 / 22.96)


@pytest.mark.parametrize(("forward", "expected"), [
    ((0.24, -1.02, 1.32), "reproduced"),  # a reference run: a forward pays little of 11.5 ms per step
    ((9.0, 7.5, 10.5), "not reproduced"),  # a forward that pays most of the step's overhead
    ((4.0, 1.0, 7.0), "inconclusive"),  # across half of it
])
def test_filter_jit_for_inference_is_acceptable_where_a_forward_pays_under_half_the_step_overhead(forward, expected):
    """The infer mode's filter_jit - jit_partition against half the training step's (blocked); the forward's ratio
    (too noisy here to decide "within 10%") is shown beside it."""
    modes = {"infer": (1.04, 0.82, 1.28, *forward), "blocked": (1.42, 1.34, 1.49, 11.5, 8.0, 13.5)}
    columns = ("ratio", "ratio_ci_low", "ratio_ci_high", "diff_ms", "diff_ci_low_ms", "diff_ci_high_ms")
    comp = pd.DataFrame([{**BASE, "config_id": "base", "mode": mode, **dict(zip(columns, values, strict=True))}
                         for mode, values in modes.items()]).assign(variant="filter_jit", baseline="jit_partition")
    judged = applicable(_inference_ok(run_on(SPEC, "base", comparisons=comp, steps=BASE_STEPS)))
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith(f"forward call {forward[0]:.3f} ms [{forward[1]:.3f}, {forward[2]:.3f}] per "
                                      "call (1.040x [0.820, 1.280]) vs training step (blocked) 11.500 ms [8.000, "
                                      f"13.500] per step (1.420x [1.340, 1.490]) at base{SUPPORTING}")
    margin = 5.75 - forward[0]  # half the step's overhead less the forward's, said as under or over it
    assert f"the forward's overhead {'under' if margin > 0 else 'over'} 0.5 x the step's by {abs(margin):.3f} ms" \
        in judged.measured
    if margin < 0:  # turned round, its interval too, and what it is
        assert "over 0.5 x the step's by 3.250 ms [1.215, 5.285] (the forward's overhead minus 0.5 of the step's" \
            in judged.measured


def _attribution_run(gap: tuple[float, float, float], python_share: float,
                     spread: tuple[float, ...] = (-0.002, 0.0, 0.002)) -> Run:
    """filter_jit at 30 ms [29.8, 30.2] and jit_partition at 21 ms [20.9, 21.1] per step at the base, traced in
    one capture per `spread` entry: jit_partition's step 10% Python around the program, filter_jit's
    `python_share` plus the entry (split over two of its components); the paired gap as given."""
    comp = pd.DataFrame([{**BASE, "config_id": "base", "axes": "layers,hidden", "diff_ms": gap[0],
                          "diff_ci_low_ms": gap[1], "diff_ci_high_ms": gap[2]}]).assign(
        variant="filter_jit", baseline="jit_partition", mode="blocked")
    medians = {"filter_jit": (30.0, 29.8, 30.2), "jit_partition": (21.0, 20.9, 21.1)}
    steps = pd.DataFrame([{**BASE, "config_id": "base", "variant": v, "mode": "blocked", "median_ms": m[0],
                           "median_ci_low_ms": m[1], "median_ci_high_ms": m[2]} for v, m in medians.items()])
    overhead = pd.DataFrame([
        {"config_id": "base", "mode": "blocked", "capture": k, "variant": v, "component": c, "share": share,
         "untraced_estimate_ms": share * medians[v][0]}
        for k, moved in enumerate(spread)
        for v, parts in {"filter_jit": {"_preprocess": (python_share + moved) / 2,
                                        "_postprocess": (python_share + moved) / 2, "wait": 1 - python_share - moved},
                         "jit_partition": {"combine": 0.1, "wait": 0.9}}.items()
        for c, share in parts.items()])
    return run_on(SPEC, "base", comparisons=comp, steps=steps, overhead=overhead)


@pytest.mark.parametrize(("gap", "python_share", "expected"), [
    # the write-up's: all of a gap measured tightly is Python (30 x 0.37 - 2.1 = 9.0 ms of 9 ms [8.8, 9.2])
    ((9.0, 8.8, 9.2), 0.37, "reproduced"),
    # a reference run: 63% of the gap, whose interval's top end still leaves it below 0.9
    ((8.5, 6.7, 12.2), 0.248, "not reproduced"),
    # a reference run: 63% of a gap reaching down to 5.8 ms: Python could be 96% of that, or 51% of 10.9
    ((8.9, 5.8, 10.9), 0.256, "inconclusive"),
    ((9.0, -0.5, 18.0), 0.37, "inconclusive"),  # no gap to explain
    # the H200 run: 8.3 ms of traced Python over a 4.3 ms gap [2.2, 6.8]: all of it Python, and more (said so)
    ((4.3, 2.2, 6.8), 0.3467, "reproduced"),
])
def test_attribution_judges_python_s_share_of_the_gap_with_both_intervals(gap, python_share, expected):
    """Python's share of the gap (each end divided by the other's) above 0.9: a point estimate against the gap's
    interval alone said "yes" wherever a process's interval was wide, and "no" on the pooled one (unstable)."""
    judged = applicable(_attribution_complete(_attribution_run(gap, python_share)))
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith("Python around the program ")
    if expected != "inconclusive" or gap[1] > 0:
        assert "of it" in judged.measured
    assert ("the traced Python exceeds the gap" in judged.measured) == (gap[2] < 8.0), judged.measured


def test_the_spread_between_captures_is_in_the_interval():
    """The write-up's case, all of a tight gap Python, stays "yes" where captures agree; with the captures spread
    as the base's (3 ms either way of the mean, earlier references' one capture each: 4.8-8.9 ms) it is
    undecided; one capture alone is undecided whatever it shows, saying why."""
    agreeing = applicable(_attribution_complete(_attribution_run((9.0, 8.8, 9.2), 0.37)))
    spread = applicable(_attribution_complete(_attribution_run((9.0, 8.8, 9.2), 0.37, (-0.1, 0.0, 0.1))))
    one = applicable(_attribution_complete(_attribution_run((9.0, 8.8, 9.2), 0.37, (0.0,))))
    assert (agreeing.verdict, spread.verdict, one.verdict) == ("reproduced", "inconclusive", "inconclusive")
    assert "(mean of 3 profiler captures, the interval with their spread)" in spread.measured
    low, high = map(float, re.search(r"\[([-\d.]+), ([-\d.]+)\] \(mean of 3", spread.measured).groups())
    assert high - low > 2 * 4.3 * 3.0 / 3 ** 0.5  # Student's t with 2 degrees of freedom on a 3 ms spread
    assert "one profiler capture" in one.measured and "one capture says nothing" in one.measured


def test_a_wider_interval_around_the_same_numbers_no_longer_says_yes():
    """The instability it mends: one process's wider gap interval around the pooled estimate cannot turn a
    "no" into a "yes"; at most into "inconclusive", which contradicts nothing."""
    pooled = applicable(_attribution_complete(_attribution_run((8.5, 6.7, 12.2), 0.248)))
    one_process = applicable(_attribution_complete(_attribution_run((8.5, 4.0, 14.0), 0.248)))
    assert (pooled.verdict, one_process.verdict) == ("not reproduced", "inconclusive")


def _pipelining_run(blocked: tuple[float, float, float], pipelined: tuple[float, float, float],
                    floor_ms: tuple[float, float]) -> Run:
    """filter_jit / the floor blocked and pipelined at the base; the floor's own medians (blocked, pipelined)."""
    comp = pd.DataFrame([{**BASE, "config_id": "base", "variant": "filter_jit", "baseline": SPEC.floor, "mode": mode,
                          "ratio": r[0], "ratio_ci_low": r[1], "ratio_ci_high": r[2]}
                         for mode, r in (("blocked", blocked), ("pipelined", pipelined))])
    steps = pd.DataFrame([{**BASE, "config_id": "base", "variant": SPEC.floor, "mode": mode, "median_ms": m,
                           "median_ci_low_ms": 0.99 * m, "median_ci_high_ms": 1.01 * m}
                          for mode, m in zip(("blocked", "pipelined"), floor_ms, strict=True)])
    return run_on(SPEC, "base", comparisons=comp, steps=steps)


@pytest.mark.parametrize(("blocked", "pipelined", "floor_ms", "expected"), [
    # an accelerator's: the floor overlaps its steps (10% a step), filter_jit's waits lose that
    ((1.02, 1.01, 1.03), (1.12, 1.11, 1.13), (50.0, 45.0), "reproduced"),
    ((1.02, 1.01, 1.03), (1.02, 1.01, 1.03), (50.0, 45.0), "inconclusive"),
    # a reference run's CPU: jax.jit itself gains nothing dispatching back to back (42.5 -> 43.0 ms),
    # so there is no overlap for filter_jit to lose
    ((1.10, 1.05, 1.15), (1.11, 1.05, 1.17), (42.5, 43.0), "not testable"),
])
def test_pipelining_is_bounded_by_what_the_floor_itself_gains_from_it(blocked, pipelined, floor_ms, expected):
    judged = applicable(_pipelining(_pipelining_run(blocked, pipelined, floor_ms)))
    assert judged.verdict == expected, judged.measured
    assert f"filter_jit / {SPEC.floor}: pipelined / blocked " in judged.measured
    assert f") at base{SUPPORTING}" in judged.measured  # the base's shape, labelled
    if expected == "not testable":
        assert judged.measured.startswith("not testable in this run: ")  # two medians of the run, not the hardware
        assert f"{SPEC.floor}'s own gain from dispatching back to back (42.50 -> 43.00 ms per step: none, it ran " \
               "slower: no gain for filter_jit to miss) gives at most 0.988x" in judged.measured
        assert "below the 1x the claim needs" in judged.measured


# filter_jit's own steps around the program, traced at the base: jit_partition never calls them
TRACED = pd.DataFrame([{"config_id": "base", "mode": "blocked", "variant": v, "component": c, "inclusive_ms": t}
                       for v, times in (("filter_jit", (3.8, 9.7)), ("jit_partition", (0.0, 0.0)))
                       for c, t in zip(("_preprocess", "_postprocess"), times, strict=True)])


@pytest.mark.parametrize(("share", "expected"), [
    ((0.05, 0.02, 0.08), "reproduced"),  # a twentieth of filter_jit's overhead left: ~0
    ((0.223, 0.056, 0.455), "inconclusive"),  # a reference run's: across 10%
    ((0.22, 0.17, 0.27), "not reproduced"),  # jax.jit's own flattening, a fifth of the old overhead, stays
])
def test_partitioning_is_judged_on_the_time_it_leaves_not_on_the_trace_that_holds_by_construction(share, expected):
    """A reference run: "0.000 ms traced" in filter_jit's own steps held by construction (jit_partition never calls
    them); timed against flat leaves, partitioning left 1.696 ms, 22.3% [5.6, 45.5] of filter_jit's overhead."""
    overhead = TRACED
    rows = [_overhead("base", (1.696, 0.514, 3.091), ("jit_partition", "jit_flat"), axes="layers,hidden"),
            _overhead("base", (7.589, 4.658, 8.991), ("filter_jit", "jit_flat"), axes="layers,hidden"),
            _overhead("base", (1.0, 0.5, 1.5), LEFT_SHARE, axes="layers,hidden")]
    comp = pd.DataFrame(rows).assign(ratio=1.0, ratio_ci_low=1.0, ratio_ci_high=1.0)
    comp.loc[2, ["ratio", "ratio_ci_low", "ratio_ci_high"]] = share
    judged = _partition_free(run_on(SPEC, "base", steps=BASE_STEPS, overhead=overhead, comparisons=comp))
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith(f"jit_partition over jit_flat 1.696 ms [0.514, 3.091]: {100 * share[0]:.1f}% "
                                      f"[{100 * share[1]:.1f}, {100 * share[2]:.1f}] of filter_jit's")
    assert judged.measured.endswith("jax.jit's own flattening")  # the trace's steps are gone by construction
    assert ("undecided: the share left crosses 0.1" in judged.reason) == (expected == "inconclusive")
    untimed = comp.assign(diff_ci_low_ms=-1.0)  # filter_jit's overhead may be 0: no share of it
    assert _partition_free(run_on(SPEC, "base", steps=BASE_STEPS, overhead=overhead,
                                  comparisons=untimed)).verdict == "not measured"


def _noop(ms: tuple[float, float, float]) -> dict:
    """The flatten mode's row (noop.py): jax.jit's handling of jit_partition's arguments over jit_flat's."""
    return _overhead("base", ms, ("jit_partition", "jit_flat"), axes="layers,hidden") | {"mode": "flatten"}


@pytest.mark.parametrize(("share", "noop", "expected"), [
    ((0.223, 0.056, 0.455), (1.4, 1.2, 1.6), "inconclusive"),  # the no-op alone 13.3% at least: shown, not judged
    ((0.05, 0.02, 0.08), (1.4, 1.2, 1.6), "reproduced"),  # a reference run's kind: the steps' paired share decides
    ((0.223, 0.056, 0.455), (0.3, 0.1, 0.5), "inconclusive"),
    ((0.05, 0.02, 0.08), (0.1, 0.05, 0.15), "reproduced"),
    ((0.05, 0.02, 0.08), (0.1, -0.2, 0.4), "reproduced"),  # a no-op across 0: flattening_left stays undecided
])
def test_the_no_op_does_not_judge_partition_free(share, noop, expected):
    """The flatten mode's no-op is timed in rounds of its own, minutes from the steps whose overhead divides it,
    while the machine's speed moves (spec.UNPAIRED: a reference run's no-op share 27.5% [14.1, 43.8] beside its steps'
    paired 0.5% [-17.3, 24.0]): partition_free is judged on the steps' paired share alone, and leaves the no-op to
    flattening_left. The no-op's own difference, timed in its own rounds, decides flattening_left where it lies
    above 0."""
    rows = [_overhead("base", (1.696, 0.514, 3.091), ("jit_partition", "jit_flat"), axes="layers,hidden"),
            _overhead("base", (7.589, 4.658, 8.991), ("filter_jit", "jit_flat"), axes="layers,hidden"),
            _overhead("base", (1.0, 0.5, 1.5), LEFT_SHARE, axes="layers,hidden"), _noop(noop)]
    comp = pd.DataFrame(rows).assign(ratio=1.0, ratio_ci_low=1.0, ratio_ci_high=1.0)
    comp.loc[2, ["ratio", "ratio_ci_low", "ratio_ci_high"]] = share
    judged = _partition_free(run_on(SPEC, "base", steps=BASE_STEPS, overhead=TRACED, comparisons=comp))
    assert judged.verdict == expected, judged.measured
    without = _partition_free(run_on(SPEC, "base", steps=BASE_STEPS, overhead=TRACED, comparisons=comp.iloc[:3]))
    assert (without.verdict, without.reason) == (judged.verdict, judged.reason)  # the no-op changes no verdict
    assert "no-op" not in judged.measured and judged.headline.unit == "%"
    assert judged.headline.value == pytest.approx(100 * share[0])  # the share left: the number its verdict rests on
    flattening = _flattening_left(run_on(SPEC, "base", steps=BASE_STEPS, comparisons=comp.assign(
        diff_ms=lambda c: c.diff_ms.where(c.index != 0, 0.2), diff_ci_low_ms=lambda c: c.diff_ci_low_ms.where(
            c.index != 0, -0.5))))  # the step's own across 0: the no-op decides where it lies above 0
    assert flattening.verdict == ("reproduced" if noop[1] > 0 else "inconclusive"), flattening.measured


@pytest.mark.parametrize(("left", "expected"), [
    ((1.499, 0.580, 2.102), "reproduced"),  # a reference run's: jax.jit's flattening costs 1.5 ms
    ((0.2, -0.5, 0.9), "inconclusive"),
    ((-1.0, -1.6, -0.4), "not reproduced"),  # partitioned faster than flat leaves
])
def test_jax_jit_s_own_flattening_is_judged_against_flat_leaves(left, expected):
    rows = [_overhead("base", left, ("jit_partition", "jit_flat"), axes="layers,hidden"),
            _overhead("base", (13.6, 11.6, 15.6), ("filter_jit", "jit_flat"), axes="layers,hidden")]
    steps = pd.DataFrame([{**BASE, "config_id": "base"}])  # BERT-base's 12-layer pytree at hidden 64
    judged = _flattening_left(run_on(SPEC, "base", steps=steps, comparisons=pd.DataFrame(rows).assign(
        ratio=1.0, ratio_ci_low=1.0, ratio_ci_high=1.0)))
    assert judged.verdict == expected, judged.measured
    assert f"): {100 * left[0] / 13.6:.1f}% [" in judged.measured
    assert "of filter_jit's 13.600 ms [11.600, 15.600] (end divided by end) at base (BERT-base's 12-layer pytree at " \
           "hidden 64" in judged.measured


@pytest.mark.parametrize("share", [(0.21, 0.17, 0.25), (None, None, None)])  # a reference run's 21%
def test_the_share_flattening_leaves_is_read_round_by_round_where_the_job_paired_it(share):
    """The same medians as a reference run (9.3-45.8% end divided by end); paired by round where the
    job paired it, and end divided by end where a round's overhead crossed 0 (no paired share)."""
    rows = [_overhead("base", (2.353, 1.454, 5.311), pair, axes="layers,hidden")
            for pair in (("jit_partition", "jit_flat"), LEFT_SHARE)]
    rows.insert(1, _overhead("base", (13.6, 11.6, 15.6), ("filter_jit", "jit_flat"), axes="layers,hidden"))
    comp = pd.DataFrame(rows).assign(ratio=1.0, ratio_ci_low=1.0, ratio_ci_high=1.0)
    comp.loc[2, ["ratio", "ratio_ci_low", "ratio_ci_high"]] = share
    steps = pd.DataFrame([{**BASE, "config_id": "base"}])
    judged = _flattening_left(run_on(SPEC, "base", steps=steps, comparisons=comp))
    assert judged.verdict == "reproduced", judged.measured  # 2.353 ms [1.454, 5.311] over the flat leaves
    how = "end divided by end" if share[0] is None else "paired by round"
    shown = "17.3% [9.3, 45.8]" if share[0] is None else "21.0% [17.0, 25.0]"
    assert f"{shown} of filter_jit's 13.600 ms [11.600, 15.600] ({how})" in judged.measured


def test_a_breakdown_row_with_a_part_below_0_is_marked_not_to_be_read():
    """A reference run at 24 layers: Python around the program -12.678 ms, the program's run 18.850 ms, for a gap of
    9.115 ms: the two traces split their steps differently, so only the parts' sum is a reading."""
    from jaxpitfalls.studies.dispatch.report import NEGATIVE_PART, attribution

    parts = {"filter_jit": {"_preprocess": 10.0, "wait": 30.0}, "jit_partition": {"_preprocess": 22.7, "wait": 11.1}}
    overhead = pd.DataFrame([{"config_id": c, "mode": SPEC.traced_mode, "variant": v, "component": k,
                              "untraced_estimate_ms": t * (1 if c == "deep" else 0.1)}
                             for c in ("base", "deep") for v, ks in parts.items() for k, t in ks.items()])
    comp = pd.DataFrame([_overhead(c, (9.1, 8.0, 10.3)) for c in ("base", "deep")])
    table = attribution(comp, overhead, _medians(0.5)).set_index("config_id")
    assert table.loc["deep", "python_around_program_ms"] == pytest.approx(-12.7)
    assert table.loc["deep", "parts"] == "python_around_program < 0" + NEGATIVE_PART
    assert table.loc["base", "parts"] == "python_around_program < 0" + NEGATIVE_PART  # scaled: still below 0
    positive = overhead.assign(untraced_estimate_ms=overhead.untraced_estimate_ms.abs())
    positive.loc[positive.variant == "jit_partition", "untraced_estimate_ms"] = 0.0
    assert set(attribution(comp, positive, _medians(0.5)).parts) == {""}


def _medians(half_ms: float) -> pd.DataFrame:
    """filter_jit 40 ms and jit_partition 33.8 ms (the deep row's parts: 6.2 ms apart), each +-`half_ms`."""
    return pd.DataFrame([{"config_id": c, "variant": v, "mode": SPEC.traced_mode, "median_ms": m,
                          "median_ci_low_ms": m - half_ms, "median_ci_high_ms": m + half_ms}
                         for c in ("base", "deep") for v, m in (("filter_jit", 40.0), ("jit_partition", 33.8))])


@pytest.mark.parametrize(("half_ms", "agree"), [(0.5, "**no**"), (2.5, "yes")])
def test_the_parts_sum_and_the_paired_gap_agree_where_either_lies_inside_the_others_interval(half_ms, agree):
    """The parts sum to the medians' difference (6.2 ms) against a paired gap of 9.1 ms [8.0, 10.3]: two estimates
    of one gap, told apart only where the medians' own intervals are narrow enough (+-0.5 ms: 6.2 +- 0.69)."""
    from jaxpitfalls.studies.dispatch.report import attribution

    parts = {"filter_jit": {"_preprocess": 10.0, "wait": 30.0}, "jit_partition": {"_preprocess": 22.7, "wait": 11.1}}
    overhead = pd.DataFrame([{"config_id": "deep", "mode": SPEC.traced_mode, "variant": v, "component": k,
                              "untraced_estimate_ms": t} for v, ks in parts.items() for k, t in ks.items()])
    comp = pd.DataFrame([_overhead("deep", (9.1, 8.0, 10.3))])
    assert attribution(comp, overhead, _medians(half_ms)).within_interval.tolist() == [agree]
