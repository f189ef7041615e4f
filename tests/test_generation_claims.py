"""The generation study's rules on known numbers: a cold start is any first run above its median's interval
(a long padded generation compiles once and is 1.7x, not 2x, its median), a short warmup distorts a
speedup whenever the interval of its effect excludes 1, in either direction, and lax.scan beats the Python
loop only by a gain of at least 5% (no bound from the loop's host side: a scan gained more than it)."""

from __future__ import annotations

import pandas as pd
import pytest
from hand_tables import run_on

from jaxpitfalls.contract.decisions import applicable
from jaxpitfalls.harness.stats import ratio_of_estimates
from jaxpitfalls.report.scorecard.magnitude import size_cell
from jaxpitfalls.report.scorecard.scorecard import ours_cell
from jaxpitfalls.studies.generation.claims import (
    JUDGES,
    _cache_faster,
    _match_warmup_config,
    cold_start,
    distorted,
    scan_beats,
)
from jaxpitfalls.studies.generation.spec import SPEC


def _first(padded_first_s: float) -> pd.DataFrame:
    return pd.DataFrame({
        "variant": ["uncached", "uncached_padded", "kv_cache"],
        "median_ms": [1000.0, 1300.0, 430.0], "median_ci_high_ms": [1200.0, 1500.0, 510.0],
        "first_run_seconds": [15.1, padded_first_s, 3.2], "first_run_compile_seconds": [9.2, 0.7, 2.5],
    }).set_index("variant")


def test_every_first_run_above_its_median_interval_is_a_cold_start_with_its_compilation_shown():
    judged = cold_start(_first(2.29), "base")
    assert judged.verdict == "reproduced"
    assert "uncached_padded 1.8x (+0.99 s, 0.70 s of it compiling)" in judged.measured
    assert cold_start(_first(1.4), "base").verdict == "not reproduced"  # inside its median's interval


@pytest.mark.parametrize(("off", "expected"), [
    ((1.22, 1.10, 1.37), True),    # overstated by a fifth: distorted, however far from the write-up's 6.7x
    ((0.15, 0.12, 0.19), True),    # understated, as in the write-up
    ((1.01, 0.98, 1.03), False),   # within 5% of the proper speedup: no distortion
    ((1.05, 0.90, 1.20), None),    # across 1 and the band: this run cannot tell
])
def test_a_short_warmup_distorts_where_its_effects_interval_excludes_1(off, expected):
    assert distorted(off) is expected


@pytest.mark.parametrize(("ratio", "expected"), [
    ((0.80, 0.75, 0.86), True),    # the scanned loop at most 86% of the Python loop's time
    ((0.95, 0.90, 1.00), None),    # across 0.95: more rounds could decide it
    ((1.016, 0.963, 1.058), False),  # a reference run: a gain under 5% wherever it lies, as fast
    ((0.928, 0.903, 0.990), None),  # a reference run: 7% faster, more than its host side (<= 4.6%)
    ((1.20, 1.10, 1.30), False),   # slower
])
def test_the_scanned_loop_beats_the_python_loop_only_by_a_gain_of_5_percent(ratio, expected):
    assert scan_beats(*ratio[1:]).outcome is expected


@pytest.mark.parametrize(("mismatched", "matched", "expected"), [
    (2, 0, "reproduced"),  # another variant's warmup left kv_cache's programs to compile in the timed region
    (0, 0, "not reproduced"),
    (2, 1, "inconclusive"),  # its own warmup left something too: the probe shows nothing about the setting
])
def test_a_warmup_of_another_setting_is_judged_on_the_compilations_it_leaves(mismatched, matched, expected):
    checks = pd.DataFrame([{"config_id": "base", "axes": "prompt,new_tokens", "demonstration": "",
                            "mismatched_warmup_warmed": "uncached", "mismatched_warmup_timed": "kv_cache",
                            "mismatched_warmup_mismatched_compiles": mismatched,
                            "mismatched_warmup_matched_compiles": matched, "mismatched_warmup_mismatched_ms": 900.0,
                            "mismatched_warmup_matched_ms": 400.0}])
    judged = _match_warmup_config(run_on(SPEC, "base", checks=checks))
    assert judged.verdict == expected, judged.measured
    assert f"{mismatched} compilations inside one timed generation (900 ms)" in judged.measured


GPT2_SMALL_CONF = {"config_id": "layers12-hidden768-prompt4-new_tokens15-warmup_fraction1", "layers": 12,
                   "hidden": 768, "axes": "layers,hidden,prompt,new_tokens,warmup_fraction"}


def _cache_run(jitted: tuple[float, float, float], eager: tuple[float, float, float] | None):
    """At GPT-2 124M's structure: the jitted uncached loop (and, where timed, the un-jitted one) over
    kv_cache, whose 15 tokens take 300 ms."""
    pairs = [("uncached", jitted)] + ([("uncached_eager", eager)] if eager else [])
    comp = pd.DataFrame([GPT2_SMALL_CONF | {"variant": v, "baseline": "kv_cache", "mode": "generate", "ratio": r[0],
                                            "ratio_ci_low": r[1], "ratio_ci_high": r[2]} for v, r in pairs])
    steps = pd.DataFrame([GPT2_SMALL_CONF | {"variant": "kv_cache", "mode": "generate", "new_tokens": 15,
                                             "median_ms": 300.0, "median_ci_low_ms": 290.0,
                                             "median_ci_high_ms": 310.0, "demonstration": "", "warmup_fraction": 1.0,
                                             "prompt": 4,
                                             "compiles_in_timed_region": 0, "n_samples": 5}])
    return run_on(SPEC, GPT2_SMALL_CONF["config_id"], comparisons=comp, steps=steps)


@pytest.mark.parametrize(("jitted", "eager", "expected"), [
    # a reference run: 2.407x against the jitted loop, the write-up's baseline; 12.638x un-jitted
    ((2.407, 2.244, 2.678), (12.638, 11.9, 13.4), "reproduced"),
    ((1.01, 0.95, 1.07), (12.638, 11.9, 13.4), "inconclusive"),  # only the un-jitted loop is slower: not judged on it
    ((0.90, 0.85, 0.95), None, "not reproduced"),  # the un-jitted loop not timed here: nothing beside it
])
def test_the_cache_is_judged_against_the_jitted_uncached_loop_with_the_un_jitted_one_beside_it(jitted, eager,
                                                                                                expected):
    judged = _cache_faster(_cache_run(jitted, eager))
    assert judged.verdict == expected, judged.measured
    assert judged.judged_ratio == jitted  # the verdict: both warm
    assert judged.ours[0] is None and "compiling" not in judged.measured  # no demonstration: nothing like theirs
    assert judged.measured.startswith(f"uncached / kv_cache {jitted[0]:.3f}x")
    assert ("against the un-jitted loop 12.638x" in judged.measured) == (eager is not None)
    assert "kv_cache: 50.0 tok/s" in judged.measured


def test_the_write_ups_16x_is_compared_with_the_uncached_loop_compiling_in_its_timed_region():
    """The write-up's uncached ran 1.50 tok/s (proper warmup) and 1.73 (short): the pace of a compilation per
    token. Its like here is the warmup demonstration's uncached (6838 ms) over the warm kv_cache (370 ms): 18.5x
    against its 16.32x, where both warm give 1.93x; the verdict stays on the warm pair, the 16.32x unsized."""
    keys = GPT2_SMALL_CONF | {"prompt": 4, "new_tokens": 15}
    demo_id = "layers12-hidden768-prompt4-new_tokens15-warmup_fraction0.33"
    steps = pd.DataFrame([keys | {"config_id": c, "variant": v, "mode": "generate", "warmup_fraction": w,
                                  "demonstration": demo, "median_ms": ms[0], "median_ci_low_ms": ms[1],
                                  "median_ci_high_ms": ms[2], "compiles_in_timed_region": 10 if demo else 0,
                                  "n_samples": 5}
                          for c, w, demo, v, ms in (
                              (keys["config_id"], 1.0, "", "kv_cache", (370.0, 350.0, 390.0)),
                              (keys["config_id"], 1.0, "", "uncached", (700.0, 690.0, 720.0)),
                              (demo_id, 0.33, "warmup 5 of 15 tokens", "uncached", (6838.0, 6600.0, 7400.0)),
                              (demo_id, 0.33, "warmup 5 of 15 tokens", "kv_cache", (2354.0, 2280.0, 2400.0)))])
    comp = pd.DataFrame([keys | {"config_id": c, "variant": "uncached", "baseline": "kv_cache", "mode": "generate",
                                 "demonstration": demo, "ratio": r[0], "ratio_ci_low": r[1], "ratio_ci_high": r[2]}
                         for c, demo, r in ((keys["config_id"], "", (1.932, 1.843, 2.118)),
                                            (demo_id, "warmup 5 of 15 tokens", (2.9, 2.7, 3.2)))])
    judged = _cache_faster(run_on(SPEC, keys["config_id"], steps=steps, comparisons=comp))
    expected = ratio_of_estimates(6838.0, (6600.0, 7400.0), 370.0, (350.0, 390.0))
    assert judged.verdict == "reproduced" and judged.judged_ratio == (1.932, 1.843, 2.118)
    assert judged.ours[0] == pytest.approx(expected) and expected[0] == pytest.approx(18.48, abs=0.01)
    assert judged.measured.startswith("uncached / kv_cache 1.932x [1.843, 2.118] both warm")
    row = {"verdict": judged.verdict, "numbers": SPEC.claims["cache_faster"].numbers, "ours": judged.ours,
           "headline": judged.headline}
    assert ours_cell(row) == "uncached / kv_cache, both warm 1.932x [1.843, 2.118]"  # the verdict's number
    # the write-up's baseline ran at a compilation per token's pace, their count unknown: not sized
    assert size_cell(row) == "— (not sizable here)"


@pytest.mark.parametrize(("device_peaks", "backend", "expected"), [
    ((float("nan"), float("nan")), "cpu", "not testable"),  # a CPU's memory_stats() has no peak: nothing refuted
    ((812.0, 790.0), "gpu", "checked"),  # the API answers; the write-up's recipe is not exercised
    ((812.0, float("nan")), "gpu", "not reproduced"),  # a job that did not record it
])
def test_memory_profiling_is_a_verdict_on_what_the_jobs_recorded(device_peaks, backend, expected):
    checks = pd.DataFrame([{"config_id": c, "axes": "prompt,new_tokens" if c == "base" else "warmup_fraction",
                            "demonstration": "", "device_peak_mb": peak, "host_peak_mb": 2400.0}
                           for c, peak in zip(("base", "short"), device_peaks, strict=True)])
    run = run_on(SPEC, "base", checks=checks, environment=pd.DataFrame({"backend": [backend]}))
    judged = applicable(JUDGES.one(run, "memory_profiling"))  # the engine's CPU clause (Claim.accelerator)
    assert judged.verdict == expected, judged.measured
    assert "host resident peak up to 2400 MB" in judged.measured


@pytest.mark.parametrize("hidden", [768, 64])
def test_the_distortion_is_the_write_ups_quotient_with_both_warmed_short_beside_it(hidden):
    """A reference run. The write-up's non-cached baseline nearly kept its speed (1.50 and 1.73 tok/s),
    so its 2.44x vs 16.32x is kv_cache's slow-down: here kv_cache 354.4 ms proper, 2218.3 ms short, 0.160x
    (understated, as the write-up's 0.15x). Both variants warmed short went the other way (3.166x vs 2.369x
    proper), shown beside it, not judged. At a smaller width than GPT-2's, both claims on the demonstration say
    so and are counted apart (supporting)."""
    keys = {"layers": 12, "hidden": hidden, "prompt": 4, "new_tokens": 15, "axes": "warmup_fraction"}
    configs = {"short": (0.33, "warmup 5 of 15 tokens", (3.166, 2.989, 3.408), (2218.3, 2125.7, 2271.7)),
               "base": (1.0, "", (2.369, 2.291, 2.470), (354.4, 331.2, 379.2))}
    steps = pd.DataFrame([{**keys, "config_id": c, "variant": v, "mode": "generate", "warmup_fraction": w,
                           "demonstration": demo, "median_ms": ms[0], "median_ci_low_ms": ms[1],
                           "median_ci_high_ms": ms[2], "compiles_in_timed_region": 10 if demo else 0, "n_samples": 5}
                          for c, (w, demo, _, ms) in configs.items() for v in ("uncached", "kv_cache")])
    comp = pd.DataFrame([{**keys, "config_id": c, "variant": "uncached", "baseline": "kv_cache", "mode": "generate",
                          "demonstration": demo, "ratio": r[0], "ratio_ci_low": r[1], "ratio_ci_high": r[2]}
                         for c, (_, demo, r, _) in configs.items()])
    run = run_on(SPEC, "base", steps=steps, comparisons=comp)
    judged = JUDGES.one(run, "distortion")
    supporting = [JUDGES.one(run, key).supporting for key in ("distortion", "slowed_cached")]
    assert supporting == [hidden != 768] * 2
    if hidden != 768:
        assert judged.ours == (None,) and judged.measured.endswith(", smaller than the write-up's structure "
                                                                   "(supporting only))")
        return
    assert judged.verdict == "reproduced" and judged.measured.startswith("timed as a user would, both variants")
    assert judged.ours[0][0] == pytest.approx(354.4 / 2218.3)  # below 1, as the write-up's
    slowed = ratio_of_estimates(2218.3, (2125.7, 2271.7), 354.4, (331.2, 379.2))  # slowed_cached's interval
    assert judged.ours[0][1:] == pytest.approx((1 / slowed[2], 1 / slowed[1]))
    # both warmed short, as a user would time them, first; the write-up's reading (the row below, slowed_cached:
    # one effect in the tally) after it, with how far the baseline it holds moved here
    said = judged.measured
    assert "overstated 1.336x" in said and said.index("overstated 1.336x") < said.index("understated")
    assert "ours slowed 6.259x" in said and "(1 / kv_cache's slow-down, slowed_cached)" in said
    assert judged.headline.value == pytest.approx(judged.ours[0][0])
    # the scorecard's cell too: the direct reading first (an expert read only the held one's direction there)
    assert judged.headline.what.startswith("both warmed short, overstated 1.336x") and \
        judged.headline.what.endswith("the write-up's way, uncached held at its proper time, 1 / kv_cache's slow-down:")
    theirs = SPEC.claims["distortion"].numbers[0]  # 2.44 / 16.32 as written to 4.23 / 24.45, baseline held
    assert (theirs.low, theirs.high) == (0.15, 0.17)


@pytest.mark.parametrize(("proper_std_ms", "retried", "expected", "backend"), [
    (10.0, 0, "not testable", "cpu"),    # 2.9% on a quiet machine: no false alarm, no interference to catch (the
                                         # demonstration's 17% not judged)
    (40.0, 0, "not reproduced", "cpu"),  # 11% on a machine the watch saw quiet: a false alarm of the 10% rule
    (40.0, 0, "not testable", "gpu"),    # ... unless the device's own causes, which the host watch cannot see
    (40.0, 2, "reproduced", "cpu"),      # 11% in a job caught busy: the rule read it right
    (10.0, 2, "not reproduced", "gpu"),  # a job caught busy, no row above 10%: the rule missed it
])
def test_the_10_percent_rule_is_judged_as_a_diagnostic_against_what_the_machine_watch_saw(proper_std_ms, retried,
                                                                                           expected, backend):
    steps = pd.DataFrame([{"config_id": c, "variant": "kv_cache", "mode": "generate", "demonstration": demo,
                           "n_samples": 3, "mean_ms": 350.0, "std_ms": std, "axes": "warmup_fraction"}
                          for c, demo, std in (("base", "", proper_std_ms), ("short", "warmup 5 of 15 tokens", 60.0))])
    checks = pd.DataFrame([{"config_id": c, "axes": "warmup_fraction", "demonstration": demo, "rounds_retried": r,
                            "rounds_contended_kept": 0, "others_share_max": 0.03, "steal_share_max": 0.01}
                           for c, demo, r in (("base", "", retried), ("short", "warmup 5 of 15 tokens", 0))])
    judged = JUDGES.one(run_on(SPEC, "base", steps=steps, checks=checks,
                               environment=pd.DataFrame({"backend": [backend]})), "trial_variance")
    assert judged.verdict == expected, judged.measured
    assert judged.measured.endswith("beside it, the warmup demonstration (compiling in its timed region): "
                                    "17.1%-17.1%")
    assert (f"the watch catching {1 if retried else 0} of 2 jobs busy") in judged.measured
