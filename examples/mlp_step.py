"""An Equinox MLP's gradient step: `eqx.filter_jit` against `jax.jit` on arguments partitioned once."""
import equinox as eqx
import jax
import jax.numpy as jnp


def grads(model, x):
    return eqx.filter_grad(lambda m: jnp.mean(jax.vmap(m)(x) ** 2))(model)

def setup(width, depth, batch):
    model = eqx.nn.MLP(width, width, width, depth, key=jax.random.key(0))
    return model, jax.random.normal(jax.random.key(1), (batch, width))

def filter_jit(model, x):
    step = eqx.filter_jit(grads)
    return lambda: step(model, x)

def jit(model, x):
    params, static = eqx.partition(model, eqx.is_array)
    step = jax.jit(lambda params, x: eqx.filter(grads(eqx.combine(params, static), x), eqx.is_array))
    return lambda: step(params, x)

VARIANTS = {"jit": jit, "filter_jit": filter_jit}
EXPECT = ["filter_jit no more than 5% slower than jit"]
