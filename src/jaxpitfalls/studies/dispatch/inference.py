"""The dispatch study's `infer` mode: filter_jit's forward call against jax.jit on the partitioned arrays with
the static part combined inside (the write-up's hybrid advice: filter_jit for inference), from the same model
and batch, outputs compared bitwise on CPU and signatures told apart before any timing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import equinox as eqx
import jax
import numpy as np

from ...harness.compiles import first_calls
from ...harness.protocol import Timed, measure_mode
from ...harness.sampling import Sampling
from ...harness.timing import Sampler, timed
from ...harness.variants import call_signature, require_agree, require_distinct

INFER_FLOOR = "jit_partition"  # the infer mode's two variants: filter_jit against the write-up's fix


def logits(model, batch: dict[str, jax.Array]) -> jax.Array:
    """The forward of the whole batch with dropout off (key None): what an inference call returns."""
    return jax.vmap(lambda ids, mask: model(ids, mask))(batch["input_ids"], batch["attention_mask"])


def _as_forward(fn):
    """One program name for both inference variants (see measure.py's `_as_train_step`)."""
    fn.__name__ = fn.__qualname__ = "forward"
    return fn


@dataclass
class _Forward:
    """One inference variant: its jitted forward and the arguments it is called with (the same batch every
    call: a forward carries no state from one call to the next)."""

    fn: Any
    args: tuple

    def __call__(self) -> jax.Array:
        return jax.block_until_ready(self.fn(*self.args))

    def sampler(self) -> Sampler:
        """One call waited for: a sample is a call's latency (calibration repeats it to `min_sample_s`)."""
        return lambda: timed(self)

    def signature(self) -> dict[str, Any]:
        return call_signature(self.fn, self.args, leaves_out=1)


def build_forwards(model, batch: dict[str, jax.Array]) -> dict[str, _Forward]:
    """The infer mode's variants from the same model and batch: `eqx.filter_jit` called with the model, and
    `jax.jit` on its arrays with the static part captured by closure and combined inside."""
    params, static = eqx.partition(model, eqx.is_array)
    filter_jit_forward = eqx.filter_jit(_as_forward(lambda model, batch: logits(model, batch)))
    jit_partition_forward = jax.jit(_as_forward(lambda params, batch: logits(eqx.combine(params, static), batch)))
    return {"filter_jit": _Forward(filter_jit_forward, (model, batch)),
            INFER_FLOOR: _Forward(jit_partition_forward, (params, batch))}


def measure_inference(model, batch: dict[str, jax.Array], sampling: Sampling, label: str) -> dict[str, Any]:
    """The `infer` mode: each forward warmed (compiled) once, their logits compared and their signatures told
    apart, then their calls timed interleaved against jit_partition (no compilation allowed)."""
    forwards = build_forwards(model, batch)
    firsts = first_calls(forwards)
    outputs = {name: np.asarray(out) for name, (out, _) in firsts.items()}
    compiles = {name: n for name, (_, n) in firsts.items()}
    agreement = require_agree(outputs, INFER_FLOOR, exact=jax.default_backend() == "cpu")
    signatures = {name: f.signature() for name, f in forwards.items()}
    distinct = require_distinct(signatures)
    timed = measure_mode({name: f.sampler() for name, f in forwards.items()}, "infer", INFER_FLOOR, sampling, label)
    return {"timed": timed, "compiles": compiles, "signatures": signatures,
            "checks": {"inference_outputs_agree": agreement | {"outputs": "logits of one forward of the batch, "
                                                                          "dropout off"},
                       "inference_signatures_distinct": distinct}}


def add_inference(modes: dict[str, Timed], variants: dict[str, dict[str, Any]], checks: dict[str, Any],
                  infer: dict[str, Any]) -> None:
    """The `infer` mode's timing, signatures, compilations and checks, beside the training modes'."""
    modes["infer"] = infer["timed"]
    for name in infer["timed"].entries:
        variants[name]["signature"]["infer"] = infer["signatures"][name]
        variants[name]["compiles_in_warmup"] += infer["compiles"][name]
    checks |= infer["checks"]
