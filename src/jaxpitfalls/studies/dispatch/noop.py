"""The dispatch study's `flatten` mode: what jax.jit's handling of its arguments costs with the partitioned model
and optimizer state (jit_partition's) against the same leaves as a flat list (jit_flat's), on a jitted no-op that
returns one scalar, so that no step's compute is in the difference: at BERT-base's 12-layer pytree the step is
~30 ms and spreads ~15% between rounds, while the difference is 1-2 ms (whether jax.jit's flattening costs anything
at all stayed undecided when timed on steps: docs/decisions.md#flatten-no-op).

A step pays this before its program starts; it also rebuilds the state it returns, which asynchronous dispatch
may hide behind the program's run; and jit_partition's and jit_flat's steps compile to the same instructions
(42,399 of the same opcodes each at the base, checked by hand at 3001d5f), so their programs run alike. This
difference is therefore at most what partitioning leaves per step, at the machine's speed while it was timed:
where it lies above 0, the step's does too (flattening_left). Divided by steps timed minutes away, where the
machine's speed can differ, it decides nothing (spec.UNPAIRED)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ...harness.sampling import Sampling
from .calls import WaitedCall, measure_calls, program_named
from .spec import FLATTEN_MODE, SPEC

_as_noop = program_named("noop")  # both variants lower to one program


def _first_elements(leaves: list[jax.Array]) -> jax.Array:
    """Every leaf's first element, summed in order: one scalar out whatever the tree (so the outputs, rebuilt by
    neither variant, do not differ) that still reads each argument."""
    return sum(leaf.ravel()[0].astype(jnp.float32) for leaf in leaves)


def build_noops(params, opt_state) -> dict[str, WaitedCall]:
    """The flatten mode's variants: the same no-op jitted on the partitioned model and optimizer state, as
    jit_partition's step takes them, and on their leaves as one flat list, as jit_flat's does."""
    tree_noop = jax.jit(_as_noop(lambda params, opt_state: _first_elements(jax.tree_util.tree_leaves((params,
                                                                                                       opt_state)))))
    flat_noop = jax.jit(_as_noop(_first_elements))
    return {"jit_partition": WaitedCall(tree_noop, (params, opt_state)),
            SPEC.floor: WaitedCall(flat_noop, (jax.tree_util.tree_leaves((params, opt_state)),))}


def measure_flattening(params, opt_state, sampling: Sampling, label: str) -> dict[str, Any]:
    """The `flatten` mode (`measure_calls`): each no-op compiled once, their scalars compared, then timed."""
    return measure_calls(build_noops(params, opt_state), FLATTEN_MODE, SPEC.floor, sampling, label, FLATTEN_MODE,
                         "one scalar: every argument leaf's first element, summed")
