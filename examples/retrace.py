"""A jitted layer called as written three ways: jitted once, `jax.jit` of a new lambda inside every call, and a
static argument new each call. The last two trace and compile on every call: what that costs (RECOMPILES)."""
import itertools

import jax
import jax.numpy as jnp


def setup(width, batch):
    k1, k2 = jax.random.split(jax.random.key(0))
    return jax.random.normal(k1, (width, width)), jax.random.normal(k2, (batch, width))


def layer(w, x):
    return jnp.tanh(x @ w) @ w.T


def jitted(w, x):
    step = jax.jit(layer)
    return lambda: step(w, x)


def jit_in_call(w, x):
    return lambda: jax.jit(lambda w, x: layer(w, x))(w, x)  # a new function each call: traced and compiled anew


def new_static(w, x):
    step = jax.jit(lambda w, x, seen: layer(w, x), static_argnums=2)  # `seen` unused: a new cache key each call
    count = itertools.count()
    return lambda: step(w, x, next(count))


VARIANTS = {"jitted": jitted, "jit_in_call": jit_in_call, "new_static": new_static}
RECOMPILES = {"jit_in_call": "a new lambda jitted in every call", "new_static": "a static argument new each call"}
EXPECT = ["jit_in_call at least 10x slower than jitted"]
