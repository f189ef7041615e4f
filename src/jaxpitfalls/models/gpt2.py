"""A GPT-2 language model in Equinox, laid out like `transformers.GPT2LMHeadModel`, with a KV cache: `logits`,
`prefill`, `decode`, one sequence at a time."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int

from .bounds import require_ids, require_positions

# Per layer: (keys, values), each (max_len, heads, head_dim).
Cache = tuple[tuple[Float[Array, "max heads hd"], Float[Array, "max heads hd"]], ...]


class Conv1D(eqx.Module):
    """GPT-2's linear layer: weight stored (in, out), as `transformers` stores it."""

    weight: Float[Array, "d_in d_out"]
    bias: Float[Array, " d_out"]

    def __call__(self, x: Float[Array, "seq d_in"]) -> Float[Array, "seq d_out"]:
        return x @ self.weight + self.bias


def _norm(layer: eqx.nn.LayerNorm, x: Float[Array, "seq d"]) -> Float[Array, "seq d"]:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(variance + layer.eps) * layer.weight + layer.bias


class Block(eqx.Module):
    ln_1: eqx.nn.LayerNorm
    c_attn: Conv1D
    attn_proj: Conv1D
    ln_2: eqx.nn.LayerNorm
    c_fc: Conv1D
    mlp_proj: Conv1D
    num_heads: int = eqx.field(static=True)

    def qkv(self, x: Float[Array, "seq d"]):
        seq, dim = x.shape
        q, k, v = jnp.split(self.c_attn(_norm(self.ln_1, x)), 3, axis=-1)
        shape = (seq, self.num_heads, dim // self.num_heads)
        return q.reshape(shape), k.reshape(shape), v.reshape(shape)

    def finish(self, x: Float[Array, "seq d"], q, keys, values, mask: Array) -> Float[Array, "seq d"]:
        """Attention of `q` over (keys, values) where `mask[query, key]`, then the MLP, both residual."""
        scores = jnp.einsum("qhd,khd->hqk", q, keys) / math.sqrt(q.shape[-1])
        scores = jnp.where(mask[None], scores, jnp.finfo(scores.dtype).min)
        context = jnp.einsum("hqk,khd->qhd", jax.nn.softmax(scores, axis=-1), values).reshape(x.shape)
        x = x + self.attn_proj(context)
        return x + self.mlp_proj(jax.nn.gelu(self.c_fc(_norm(self.ln_2, x)), approximate=True))


class GPT2LMHeadModel(eqx.Module):
    wte: Float[Array, "vocab d"]
    wpe: Float[Array, "positions d"]
    blocks: tuple[Block, ...]
    ln_f: eqx.nn.LayerNorm

    def require_ids(self, ids) -> None:
        """Refuse concrete token ids outside the vocabulary."""

        require_ids(ids, self.wte, "GPT-2")

    def _head(self, x: Float[Array, "seq d"]) -> Float[Array, "seq vocab"]:
        return _norm(self.ln_f, x) @ self.wte.T  # the output embedding is tied to the input one

    def logits(self, ids: Int[Array, " seq"], length: Int[Array, ""] | None = None) -> Float[Array, "seq vocab"]:
        """Every position's next-token logits; with `length`, positions from `length` on are padding."""
        seq = ids.shape[0]
        require_positions(seq, self.wpe, "GPT-2")
        positions = jnp.arange(seq)
        mask = positions[None, :] <= positions[:, None]
        if length is not None:
            mask = mask & (positions[None, :] < length)
        x = self.wte[ids] + self.wpe[positions]
        for block in self.blocks:
            q, k, v = block.qkv(x)
            x = block.finish(x, q, k, v, mask)
        return self._head(x)

    def prefill(self, ids: Int[Array, " prompt"], max_len: int) -> tuple[Float[Array, " vocab"], Cache]:
        """The prompt's last logits and a cache of `max_len` positions holding the prompt's keys/values."""
        seq = ids.shape[0]
        if seq > max_len:
            raise ValueError(f"GPT-2 prefill: a prompt of {seq} tokens does not fit a cache of {max_len}")
        require_positions(max_len, self.wpe, "GPT-2")  # every position the cache will hold
        positions = jnp.arange(seq)
        mask = positions[None, :] <= positions[:, None]
        x = self.wte[ids] + self.wpe[positions]
        cache = []
        for block in self.blocks:
            q, k, v = block.qkv(x)
            pad = ((0, max_len - seq), (0, 0), (0, 0))
            cache.append((jnp.pad(k, pad), jnp.pad(v, pad)))
            x = block.finish(x, q, k, v, mask)
        return self._head(x)[-1], tuple(cache)

    def decode(self, token: Int[Array, ""], position: Int[Array, ""], cache: Cache) -> tuple[
            Float[Array, " vocab"], Cache]:
        """One token at `position`: its logits, and the cache with its keys/values written in."""
        max_len = cache[0][0].shape[0]
        require_positions(max_len, self.wpe, "GPT-2")  # `position` (traced) lies in the cache: callers keep it so
        mask = (jnp.arange(max_len) <= position)[None, :]
        x = (self.wte[token] + self.wpe[position])[None, :]
        updated = []
        for block, (keys, values) in zip(self.blocks, cache, strict=True):
            q, k, v = block.qkv(x)
            keys = jax.lax.dynamic_update_slice_in_dim(keys, k, position, axis=0)
            values = jax.lax.dynamic_update_slice_in_dim(values, v, position, axis=0)
            updated.append((keys, values))
            x = block.finish(x, q, keys, values, mask)
        return self._head(x)[0], tuple(updated)
