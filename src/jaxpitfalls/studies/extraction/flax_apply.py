"""Whether Flax's `model.apply` compiles itself, as the write-up says: a linen stack (transformers ships no Flax models
now) un-jitted against `jax.jit(model.apply)`."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ...harness.probes import PROBES, paired_calls


def _stack(layers: int, hidden: int):
    import flax.linen as nn

    class Stack(nn.Module):
        """`layers` residual blocks of Dense -> gelu -> Dense, then a LayerNorm."""

        @nn.compact
        def __call__(self, x):
            for _ in range(layers):
                x = x + nn.Dense(hidden)(nn.gelu(nn.Dense(hidden)(x)))
            return nn.LayerNorm()(x)

    return Stack()


def probe(layers: int, hidden: int, batch: int, length: int, probes: int = PROBES) -> dict[str, object]:
    """apply un-jitted and jitted: first-call programs, median ms, ratio; `release`: Flax's, or missing (no more)."""
    try:
        import flax
    except ImportError:
        return {"release": "not installed in the job's environment (requirements.txt pins it)"}
    model = _stack(layers, hidden)
    x = jnp.ones((batch, length, hidden), jnp.float32)
    params = model.init(jax.random.key(0), x[:1, :1])
    jitted = jax.jit(model.apply)
    return {"release": flax.__version__, "layers": layers, "hidden": hidden} | paired_calls(
        ("apply", lambda: model.apply(params, x)), ("jit", lambda: jitted(params, x)), probes)
