"""The write-up's `decode_step_with_activations`, un-jitted as written: probed against jitted after the timed passes."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from ...harness.probes import PROBES, paired_calls


def probe(model, forward: Callable, probes: int = PROBES) -> dict[str, object]:
    """`forward` on one token, un-jitted and jitted: median ms, compiles, eager / jit (median, 95%)."""
    ids, mask = jnp.ones((1, 1), jnp.int32), jnp.ones((1, 1), jnp.int32)
    jitted = jax.jit(forward)
    return paired_calls(("eager", lambda: forward(model, ids, mask)), ("jit", lambda: jitted(model, ids, mask)),
                        probes)
