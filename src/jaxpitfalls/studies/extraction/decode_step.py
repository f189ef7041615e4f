"""The write-up's decode-time extraction as it wrote it: `decode_step_with_activations` calls the model on one
token with every layer's activations returned, without `jax.jit` (its prefill and decode steps are jitted).
Probed once per job after its timed passes: that step un-jitted (each operation dispatched on its own) and
jitted, in alternating blocked calls, after a warm call of each."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from ...harness.probes import PROBES, paired_calls


def probe(model, forward: Callable, probes: int = PROBES) -> dict[str, object]:
    """`forward(model, ids, mask)` (every layer's hidden states) on one token, as called un-jitted and jitted:
    each call's median ms, the programs its warm call compiled, and eager / jit per pair (median, bootstrap 95%
    interval)."""
    ids, mask = jnp.ones((1, 1), jnp.int32), jnp.ones((1, 1), jnp.int32)
    jitted = jax.jit(forward)
    return paired_calls(("eager", lambda: forward(model, ids, mask)), ("jit", lambda: jitted(model, ids, mask)),
                        probes)
