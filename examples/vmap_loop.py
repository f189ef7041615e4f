"""A batch of small matrix-vector products: `jax.vmap` of one jitted function against a Python loop calling it
once per row; warm, and in a fresh process's first call (FIRST_RUN: tracing and compiling too)."""
import jax
import jax.numpy as jnp


def setup(batch, width):
    k1, k2 = jax.random.split(jax.random.key(0))
    return jax.random.normal(k1, (width, width)), jax.random.normal(k2, (batch, width))


def product(w, x):
    return jnp.tanh(w @ x)


def vmap(w, xs):
    batched = jax.jit(jax.vmap(product, in_axes=(None, 0)))
    return lambda: batched(w, xs)


def loop(w, xs):
    one = jax.jit(product)
    rows = list(xs)  # the rows apart, before the timer: the loop's cost is its calls
    return lambda: jnp.stack([one(w, x) for x in rows])


VARIANTS = {"vmap": vmap, "loop": loop}
FLOOR = "loop"
FIRST_RUN = True
EXPECT = ["vmap at least 2x faster than loop", "vmap compiles faster than loop"]  # the loop's stack compiles too
