"""The toy study's measuring side: each variant called on the model's first array leaf."""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from jaxpitfalls.contract.settings import Timing, Traced
from jaxpitfalls.harness import tracing
from jaxpitfalls.harness.compiles import count_compiles
from jaxpitfalls.harness.protocol import Runner, measure_mode, result_document
from jaxpitfalls.harness.timing import timed
from jaxpitfalls.harness.variants import require_agree, require_distinct
from jaxpitfalls.models.checkpoint import load_model

from .spec import SPEC


def gram(x: jax.Array) -> jax.Array:
    return jnp.tanh(x) @ x.T


def runners(model_dir: str) -> dict[str, Runner]:
    model, _ = load_model(model_dir)
    x = jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_array))[0]
    functions = {"eager": gram, "jit": jax.jit(gram)}

    def runner(name: str) -> Runner:
        calls = [0]

        def step() -> jax.Array:
            calls[0] += 1
            return functions[name](x)

        return Runner(name, step, lambda: {"jitted": name == "jit"}, calls)

    return {name: runner(name) for name in SPEC.variants}


def run(conf: dict[str, Any], inputs: dict[str, str], settings: Timing) -> dict[str, Any]:
    found, outputs, warm = runners(inputs["model"]), {}, {}
    for name, r in found.items():
        with count_compiles() as counter:
            outputs[name] = np.asarray(r.step())
        warm[name] = counter.count
    agreement = require_agree(outputs, SPEC.floor, exact=False, rtol=1e-4, atol=1e-5)
    signatures = {name: r.signature() for name, r in found.items()}
    distinct = require_distinct(signatures)
    samplers = {name: (lambda r=r: timed(lambda: jax.block_until_ready(r.step()))) for name, r in found.items()}
    calls = measure_mode(samplers, "call", SPEC.floor, settings.sampling, conf["id"])
    variants = {name: {"signature": signatures[name], "calls": r.calls[0], "compiles_in_warmup": warm[name]}
                for name, r in found.items()}
    return result_document(SPEC.floor, {"call": calls}, variants, {
        "outputs_agree": agreement | {"outputs": "the Gram matrix of tanh(x)"}, "signatures_distinct": distinct})


def trace(conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
    return tracing.capture(runners(inputs["model"]), settings.trace_steps, out_dir, settings.captures)
