"""dispatch's `flatten` mode: jax.jit's handling of jit_partition's arguments against jit_flat's flat list on a jitted
no-op, free of a step's compute (docs/decisions.md#flatten-no-op). Both steps compile to one program, so this bounds
what partitioning leaves from below; unpaired with steps, it decides nothing."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ...harness.sampling import Sampling
from .calls import WaitedCall, measure_calls, program_named
from .spec import FLATTEN_MODE, SPEC

_as_noop = program_named("noop")  # both variants lower to one program


def _first_elements(leaves: list[jax.Array]) -> jax.Array:
    """Every leaf's first element, summed: one scalar whatever the tree, still reading each argument."""
    return sum(leaf.ravel()[0].astype(jnp.float32) for leaf in leaves)


def build_noops(params, opt_state) -> dict[str, WaitedCall]:
    """One no-op jitted on (params, opt_state) and on their leaves as a flat list."""
    tree_noop = jax.jit(_as_noop(lambda params, opt_state: _first_elements(jax.tree_util.tree_leaves((params,
                                                                                                       opt_state)))))
    flat_noop = jax.jit(_as_noop(_first_elements))
    return {"jit_partition": WaitedCall(tree_noop, (params, opt_state)),
            SPEC.floor: WaitedCall(flat_noop, (jax.tree_util.tree_leaves((params, opt_state)),))}


def measure_flattening(params, opt_state, sampling: Sampling, label: str) -> dict[str, Any]:
    """The `flatten` mode: no-ops compiled once, scalars compared, then timed."""
    return measure_calls(build_noops(params, opt_state), FLATTEN_MODE, SPEC.floor, sampling, label, FLATTEN_MODE,
                         "one scalar: every argument leaf's first element, summed")
