"""What donating the parameters to the jitted extraction does, as the write-up's improved code does it
(`donate_argnums` on the params: "garbage collected after use if last reference"). XLA reuses a donated buffer
only for an output of the same shape and dtype; JAX frees the buffers it reused (they cannot be passed again)
and warns about the others, which stay alive. Probed once per job after its timed passes, on a copy of the
parameters (a freed buffer is gone for every holder)."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp

NOT_USABLE = "donated buffers were not usable"  # JAX's warning for donated buffers no output reused


def probe(model, forward: Callable, first: tuple, second: tuple) -> dict[str, object]:
    """`forward(model, ids, mask)` jitted with the model donated, called on a copy of `model` with batch
    `first` and then `second`: how many parameter buffers (and bytes) the first call freed, whether JAX
    warned that donated buffers were not usable, and what the second call did with the same parameters."""
    params = jax.tree_util.tree_map(jnp.copy, model)
    leaves = jax.tree_util.tree_leaves(params)
    donated = jax.jit(forward, donate_argnums=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jax.block_until_ready(donated(params, jnp.asarray(first[0]), jnp.asarray(first[1])))
    freed = [leaf for leaf in leaves if leaf.is_deleted()]
    try:
        jax.block_until_ready(donated(params, jnp.asarray(second[0]), jnp.asarray(second[1])))
        second_batch = "ran"
    except (RuntimeError, ValueError) as error:  # jaxlib raises either for a deleted buffer, by version
        second_batch = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:120]}"
    return {"parameters": len(leaves), "freed": len(freed),
            "parameter_mb": sum(leaf.nbytes for leaf in leaves) / 2**20,
            "freed_mb": sum(leaf.nbytes for leaf in freed) / 2**20,
            "warned_not_usable": any(NOT_USABLE in str(w.message) for w in caught), "second_batch": second_batch}
