"""A Qwen2-style decoder in Equinox, laid out like `transformers.Qwen2ForCausalLM`, one sequence at a time; returns
the logits and every layer's hidden states."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float, Int

from .bounds import require_ids


class Linear(eqx.Module):
    """`y = x W^T (+ b)`, weight stored (out, in) as PyTorch stores it."""

    weight: Float[Array, "d_out d_in"]
    bias: Float[Array, " d_out"] | None

    def __call__(self, x: Float[Array, "seq d_in"]) -> Float[Array, "seq d_out"]:
        y = x @ self.weight.T
        return y if self.bias is None else y + self.bias


class RMSNorm(eqx.Module):
    weight: Float[Array, " d"]
    eps: float = eqx.field(static=True)

    def __call__(self, x: Float[Array, "seq d"]) -> Float[Array, "seq d"]:
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + self.eps) * self.weight


def _rotate_half(x: Array) -> Array:
    x1, x2 = jnp.split(x, 2, axis=-1)
    return jnp.concatenate([-x2, x1], axis=-1)


def rotary(x: Float[Array, "seq heads hd"], positions: Int[Array, " seq"], theta: float) -> Float[Array, "seq h hd"]:
    """Rotary position embedding (the `rotate_half` form `transformers` uses)."""
    hd = x.shape[-1]
    inv_freq = 1.0 / (theta ** (jnp.arange(0, hd, 2, dtype=jnp.float32) / hd))
    freqs = positions[:, None].astype(jnp.float32) * inv_freq[None, :]
    angles = jnp.concatenate([freqs, freqs], axis=-1)[:, None, :]
    return x * jnp.cos(angles) + _rotate_half(x) * jnp.sin(angles)


class DecoderLayer(eqx.Module):
    input_layernorm: RMSNorm
    q_proj: Linear
    k_proj: Linear
    v_proj: Linear
    o_proj: Linear
    post_attention_layernorm: RMSNorm
    gate_proj: Linear
    up_proj: Linear
    down_proj: Linear
    num_heads: int = eqx.field(static=True)
    num_kv_heads: int = eqx.field(static=True)
    rope_theta: float = eqx.field(static=True)

    def __call__(self, x: Float[Array, "seq d"], positions: Int[Array, " seq"],
                 mask: Bool[Array, "seq seq"]) -> Float[Array, "seq d"]:
        seq = x.shape[0]
        h = self.input_layernorm(x)
        hd = self.q_proj.weight.shape[0] // self.num_heads
        q = rotary(self.q_proj(h).reshape(seq, self.num_heads, hd), positions, self.rope_theta)
        k = rotary(self.k_proj(h).reshape(seq, self.num_kv_heads, hd), positions, self.rope_theta)
        v = self.v_proj(h).reshape(seq, self.num_kv_heads, hd)
        group = self.num_heads // self.num_kv_heads  # query heads per key/value head
        k, v = jnp.repeat(k, group, axis=1), jnp.repeat(v, group, axis=1)
        scores = jnp.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)
        scores = jnp.where(mask[None], scores, jnp.finfo(scores.dtype).min)
        context = jnp.einsum("hqk,khd->qhd", jax.nn.softmax(scores, axis=-1), v).reshape(seq, -1)
        x = x + self.o_proj(context)
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(jax.nn.silu(self.gate_proj(h)) * self.up_proj(h))


class Qwen2ForCausalLM(eqx.Module):
    embed_tokens: Float[Array, "vocab d"]
    layers: tuple[DecoderLayer, ...]
    norm: RMSNorm
    lm_head: Float[Array, "vocab d"]

    def require_ids(self, ids) -> None:
        """Refuse concrete token ids outside the vocabulary (bounds.py); rotary positions have no table."""
        require_ids(ids, self.embed_tokens, "Qwen2")

    def __call__(self, ids: Int[Array, " seq"], attention_mask: Int[Array, " seq"] | None = None
                 ) -> tuple[Float[Array, "seq vocab"], tuple[Float[Array, "seq d"], ...]]:
        """Logits and hidden states as `output_hidden_states=True` gives them (the last after the final norm)."""
        seq = ids.shape[0]
        positions = jnp.arange(seq)
        mask = positions[None, :] <= positions[:, None]
        if attention_mask is not None:
            mask = mask & (attention_mask[None, :] > 0)
        x = self.embed_tokens[ids]
        hidden = [x]
        for layer in self.layers:
            x = layer(x, positions, mask)
            hidden.append(x)
        x = self.norm(x)
        hidden[-1] = x
        return x @ self.lm_head.T, tuple(hidden)
