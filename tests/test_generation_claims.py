"""The generation study's rules on known numbers: a cold start is any first run above its median's interval
(a long padded generation compiles once and is 1.7x, not 2x, its median), a short warmup distorts a
speedup whenever the interval of its effect excludes 1, in either direction, and lax.scan beats the Python
loop only by a gain of at least 5%."""

from __future__ import annotations

import pandas as pd
import pytest
from hand_tables import run_on

from jaxpitfalls.studies.generation.claims import _match_warmup_config, cold_start, distorted, scan_beats
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
    ((1.016, 0.963, 1.058), False),  # the 2026-11-24 reference: a gain under 5% wherever it lies, as fast
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
