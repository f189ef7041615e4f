"""Build the Equinox Qwen2 from a `transformers` Qwen2 state dict (names as `Qwen2ForCausalLM` saves them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np

from .hf_config import FromJson, unsupported_activation
from .qwen2 import DecoderLayer, Linear, Qwen2ForCausalLM, RMSNorm

StateDict = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Qwen2Config(FromJson):
    """The fields of a Qwen2 config.json the conversion needs, with `transformers.Qwen2Config`'s defaults."""

    num_hidden_layers: int = 24
    num_attention_heads: int = 14
    num_key_value_heads: int = 2
    vocab_size: int = 151936
    rms_norm_eps: float = 1e-6
    hidden_act: str = "silu"
    tie_word_embeddings: bool = False
    rope_theta: float = 10000.0

    @classmethod
    def from_json(cls, values: Mapping[str, Any]) -> Qwen2Config:
        """transformers v5 keeps rope_theta inside `rope_parameters`."""
        rope = values.get("rope_parameters") or {}
        return super().from_json(values | ({"rope_theta": rope["rope_theta"]} if "rope_theta" in rope else {}))


def _linear(sd: StateDict, prefix: str) -> Linear:
    bias = sd.get(f"{prefix}.bias")
    return Linear(jnp.asarray(sd[f"{prefix}.weight"]), None if bias is None else jnp.asarray(bias))


def _norm(sd: StateDict, name: str, eps: float) -> RMSNorm:
    return RMSNorm(jnp.asarray(sd[name]), eps)


def qwen2_from_state_dict(sd: StateDict, config: Qwen2Config) -> Qwen2ForCausalLM:
    if problem := unsupported_activation("qwen2", vars(config)):
        raise ValueError(problem)
    eps = config.rms_norm_eps
    layers = tuple(
        DecoderLayer(
            input_layernorm=_norm(sd, f"model.layers.{i}.input_layernorm.weight", eps),
            q_proj=_linear(sd, f"model.layers.{i}.self_attn.q_proj"),
            k_proj=_linear(sd, f"model.layers.{i}.self_attn.k_proj"),
            v_proj=_linear(sd, f"model.layers.{i}.self_attn.v_proj"),
            o_proj=_linear(sd, f"model.layers.{i}.self_attn.o_proj"),
            post_attention_layernorm=_norm(sd, f"model.layers.{i}.post_attention_layernorm.weight", eps),
            gate_proj=_linear(sd, f"model.layers.{i}.mlp.gate_proj"),
            up_proj=_linear(sd, f"model.layers.{i}.mlp.up_proj"),
            down_proj=_linear(sd, f"model.layers.{i}.mlp.down_proj"),
            num_heads=config.num_attention_heads,
            num_kv_heads=config.num_key_value_heads,
            rope_theta=config.rope_theta,
        )
        for i in range(config.num_hidden_layers)
    )
    embed = jnp.asarray(sd["model.embed_tokens.weight"])
    head = embed if config.tie_word_embeddings or "lm_head.weight" not in sd else jnp.asarray(sd["lm_head.weight"])
    return Qwen2ForCausalLM(embed_tokens=embed, layers=layers, norm=_norm(sd, "model.norm.weight", eps), lm_head=head)
