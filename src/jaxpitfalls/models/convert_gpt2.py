"""Build the Equinox GPT-2 from a `transformers` GPT-2 state dict (names as `GPT2LMHeadModel` saves them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .gpt2 import Block, Conv1D, GPT2LMHeadModel
from .hf_config import FromJson, unsupported_activation

StateDict = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class GPT2Config(FromJson):
    """The fields of a GPT-2 config.json the conversion needs, with `transformers.GPT2Config`'s defaults."""

    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    n_positions: int = 1024
    vocab_size: int = 50257
    activation_function: str = "gelu_new"
    layer_norm_epsilon: float = 1e-5


def _conv(sd: StateDict, prefix: str) -> Conv1D:
    return Conv1D(jnp.asarray(sd[f"{prefix}.weight"]), jnp.asarray(sd[f"{prefix}.bias"]))


def _layer_norm(sd: StateDict, prefix: str, eps: float) -> eqx.nn.LayerNorm:
    weight, bias = sd[f"{prefix}.weight"], sd[f"{prefix}.bias"]
    norm = eqx.nn.LayerNorm(weight.shape, eps=eps)
    return eqx.tree_at(lambda m: (m.weight, m.bias), norm, (jnp.asarray(weight), jnp.asarray(bias)))


def gpt2_from_state_dict(sd: StateDict, config: GPT2Config) -> GPT2LMHeadModel:
    if problem := unsupported_activation("gpt2", vars(config)):
        raise ValueError(problem)
    eps = config.layer_norm_epsilon
    blocks = tuple(
        Block(
            ln_1=_layer_norm(sd, f"transformer.h.{i}.ln_1", eps),
            c_attn=_conv(sd, f"transformer.h.{i}.attn.c_attn"),
            attn_proj=_conv(sd, f"transformer.h.{i}.attn.c_proj"),
            ln_2=_layer_norm(sd, f"transformer.h.{i}.ln_2", eps),
            c_fc=_conv(sd, f"transformer.h.{i}.mlp.c_fc"),
            mlp_proj=_conv(sd, f"transformer.h.{i}.mlp.c_proj"),
            num_heads=config.n_head,
        )
        for i in range(config.n_layer)
    )
    return GPT2LMHeadModel(
        wte=jnp.asarray(sd["transformer.wte.weight"]),
        wpe=jnp.asarray(sd["transformer.wpe.weight"]),
        blocks=blocks,
        ln_f=_layer_norm(sd, "transformer.ln_f", eps),
    )
