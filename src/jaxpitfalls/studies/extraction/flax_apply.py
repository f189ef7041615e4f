"""Whether a Flax `model.apply` is compiled by itself, as the write-up says ("all nn.Module methods are
automatically JIT-compiled when used with model.apply()"). transformers no longer ships Flax models, so the
probe builds a Flax linen stack of the base configuration's depth and width (a residual MLP per layer: what
apply does with a module does not depend on which layers it holds) and calls `model.apply` as the write-up's
loop does, un-jitted, beside `jax.jit(model.apply)`. Probed after the timed passes.

Evidence of two kinds: a jitted function compiles one program for a new input shape, while operations called
one by one compile one small program each; and the calls' times, alternating, after a warm call of each."""

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
    """model.apply un-jitted and jax.jit(model.apply) on a (batch, length, hidden) input: the programs each
    compiled for its first call on that shape, each call's median ms, and un-jitted / jitted per pair (median,
    bootstrap 95% interval); `release` names Flax's, or says it is not installed (nothing else is then
    recorded)."""
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
