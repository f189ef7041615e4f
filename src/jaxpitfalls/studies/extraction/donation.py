"""What donating the parameters frees (the write-up: "garbage collected after use"): XLA reuses a donated buffer only
for a same-shaped output; JAX frees those and warns of the rest."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp

NOT_USABLE = "donated buffers were not usable"  # JAX's warning for donated buffers no output reused
log = logging.getLogger(__name__)


def probe(model, forward: Callable, first: tuple, second: tuple) -> dict[str, object]:
    """`forward` jitted with the model donated, on a copy, with `first` then `second`: what each call freed or did."""
    params = jax.tree_util.tree_map(jnp.copy, model)
    leaves = jax.tree_util.tree_leaves(params)
    donated = jax.jit(forward, donate_argnums=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jax.block_until_ready(donated(params, jnp.asarray(first[0]), jnp.asarray(first[1])))
    freed = [leaf for leaf in leaves if leaf.is_deleted()]
    if freed:  # the runtime logs its refusal as an error line of its own, which reads as the job's
        log.info("donation probe: calling again with the %d freed parameters; the runtime's \"Buffer has been "
                 "deleted or donated\" error that follows is expected", len(freed))
    try:
        jax.block_until_ready(donated(params, jnp.asarray(second[0]), jnp.asarray(second[1])))
        second_batch = "ran"
    except (RuntimeError, ValueError) as error:  # jaxlib raises either for a deleted buffer, by version
        second_batch = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:120]}"
    return {"parameters": len(leaves), "freed": len(freed),
            "parameter_mb": sum(leaf.nbytes for leaf in leaves) / 2**20,
            "freed_mb": sum(leaf.nbytes for leaf in freed) / 2**20,
            "warned_not_usable": any(NOT_USABLE in str(w.message) for w in caught), "second_batch": second_batch}
