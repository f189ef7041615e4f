"""dispatch's `infer` mode: filter_jit's forward against jax.jit on the partitioned arrays."""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax

from ...harness.sampling import Sampling
from .calls import WaitedCall, measure_calls, program_named

INFER_FLOOR = "jit_partition"  # the infer mode's two variants: filter_jit against the write-up's fix
_as_forward = program_named("forward")  # both variants' forward


def logits(model, batch: dict[str, jax.Array]) -> jax.Array:
    """The batch's forward with dropout off: what an inference call returns."""
    return jax.vmap(lambda ids, mask: model(ids, mask))(batch["input_ids"], batch["attention_mask"])


def build_forwards(model, batch: dict[str, jax.Array]) -> dict[str, WaitedCall]:
    """The infer mode's variants: `eqx.filter_jit` on the model; `jax.jit` on its arrays, combined inside."""
    params, static = eqx.partition(model, eqx.is_array)
    filter_jit_forward = eqx.filter_jit(_as_forward(lambda model, batch: logits(model, batch)))
    jit_partition_forward = jax.jit(_as_forward(lambda params, batch: logits(eqx.combine(params, static), batch)))
    return {"filter_jit": WaitedCall(filter_jit_forward, (model, batch)),
            INFER_FLOOR: WaitedCall(jit_partition_forward, (params, batch))}


def measure_inference(model, batch: dict[str, jax.Array], sampling: Sampling, label: str) -> dict[str, Any]:
    """The `infer` mode: forwards compiled once, logits compared, then timed."""
    return measure_calls(build_forwards(model, batch), "infer", INFER_FLOOR, sampling, label, "inference",
                         "logits of one forward of the batch, dropout off")
