"""The write-up's decode-time extraction as it wrote it: `decode_step_with_activations` calls the model on one
token with every layer's activations returned, without `jax.jit` (its prefill and decode steps are jitted).
Probed once per job after its timed passes: that step un-jitted (each operation dispatched on its own) and
jitted, in alternating blocked calls, after a warm call of each."""

from __future__ import annotations

import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

from ...harness.stats import paired_comparison

PROBES = 15  # alternating pairs of calls: the paired ratio's median and bootstrap 95% interval


def _ms(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    jax.block_until_ready(step())
    return (time.perf_counter() - start) * 1e3


def probe(model, forward: Callable, probes: int = PROBES) -> dict[str, object]:
    """`forward(model, ids, mask)` (every layer's hidden states) on one token, as called un-jitted and jitted:
    each call's time in ms (medians) and eager / jit per pair (median, bootstrap 95% interval)."""
    ids, mask = jnp.ones((1, 1), jnp.int32), jnp.ones((1, 1), jnp.int32)
    jitted = jax.jit(forward)
    calls = {"eager": lambda: forward(model, ids, mask), "jit": lambda: jitted(model, ids, mask)}
    for call in calls.values():
        _ms(call)  # the jitted program compiles, the eager operations compile for this shape
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(probes):
        for name, call in calls.items():
            times[name].append(_ms(call))
    ratio = paired_comparison(times["eager"], times["jit"])
    return {"probes": probes, "eager_ms": float(sorted(times["eager"])[probes // 2]),
            "jit_ms": float(sorted(times["jit"])[probes // 2]),
            "ratio": ratio["ratio"], "ratio_ci_low": ratio["ratio_ci_low"], "ratio_ci_high": ratio["ratio_ci_high"]}
