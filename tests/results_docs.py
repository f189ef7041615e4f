"""A hand-made result of one worker process, the shape a study's `run` returns (harness.protocol.result_document):
for tests of what is done with results after they are measured (merged over processes, thinned)."""

from __future__ import annotations

import numpy as np

from jaxpitfalls.harness import stats


def process_doc(level: float, seed: int, signature: str = "s") -> dict:
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
                          "sampled_s": {"f": 0.5, "v": 0.5 * level}, "rounds_s": 1.25 * level,
                          "windows": [window, window | {"rounds": 1, "contended": True, "kept": False}]}},
        "checks": {key: {"reference": "f", "compared": "bitwise", "values": 3, "outputs": "o",
                         "max_abs_difference": {"f": 0.0, "v": level - 1},
                         "bitwise_equal": {"f": True, "v": level == 1}}
                   for key in ("outputs_agree", "inference_outputs_agree")},  # a study's second agreement (dispatch)
        "structure": {"leaves": 5},
    }
