"""A BERT masked-LM in Equinox, laid out like `transformers.BertForMaskedLM`, one sequence at a time; each linear
layer its own `eqx.nn.Linear`, so the pytree has the state dict's leaves."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int, PRNGKeyArray

from .bounds import require_ids, require_positions


def _split(key: PRNGKeyArray | None, n: int) -> list[PRNGKeyArray | None]:
    """n keys, or n Nones when dropout is off."""
    return [None] * n if key is None else list(jax.random.split(key, n))


def _dense(layer: eqx.nn.Linear, x: Float[Array, "seq d"]) -> Float[Array, "seq e"]:
    """`jax.vmap(layer)(x)` as one matmul: the same math, a smaller program to trace and compile."""
    return x @ layer.weight.T + layer.bias


def _norm(layer: eqx.nn.LayerNorm, x: Float[Array, "seq d"]) -> Float[Array, "seq d"]:
    """`jax.vmap(layer)(x)` over the sequence at once."""
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.maximum(jnp.var(x, axis=-1, keepdims=True), 0.0)
    return (x - mean) * jax.lax.rsqrt(variance + layer.eps) * layer.weight + layer.bias


def _gelu(x: Array) -> Array:
    """BERT's `hidden_act="gelu"` is the exact erf form, not the tanh approximation."""
    return jax.nn.gelu(x, approximate=False)


class Embeddings(eqx.Module):
    word: eqx.nn.Embedding
    position: eqx.nn.Embedding
    token_type: eqx.nn.Embedding
    norm: eqx.nn.LayerNorm
    dropout: eqx.nn.Dropout

    def __call__(self, ids: Int[Array, " seq"], key: PRNGKeyArray | None) -> Float[Array, "seq d"]:
        require_positions(ids.shape[0], self.position.weight, "BERT")
        positions = jnp.arange(ids.shape[0])
        x = self.word.weight[ids] + self.position.weight[positions] + self.token_type.weight[0]
        return self.dropout(_norm(self.norm, x), key=key, inference=key is None)


class SelfAttention(eqx.Module):
    """BERT's self-attention: `explicit` (transformers' "eager") or `fused` ("sdpa": no dropout on probabilities)."""

    query: eqx.nn.Linear
    key: eqx.nn.Linear
    value: eqx.nn.Linear
    output: eqx.nn.Linear
    norm: eqx.nn.LayerNorm
    probs_dropout: eqx.nn.Dropout
    output_dropout: eqx.nn.Dropout
    num_heads: int = eqx.field(static=True)
    implementation: str = eqx.field(static=True, default="explicit")

    def __call__(
        self, x: Float[Array, "seq d"], mask: Int[Array, " seq"], key: PRNGKeyArray | None
    ) -> Float[Array, "seq d"]:
        seq, dim = x.shape
        head_dim = dim // self.num_heads

        def heads(layer: eqx.nn.Linear) -> Float[Array, "seq heads hd"]:
            return _dense(layer, x).reshape(seq, self.num_heads, head_dim)

        q, k, v = heads(self.query), heads(self.key), heads(self.value)
        k_probs, k_out = _split(key, 2)
        if self.implementation == "fused":
            context = jax.nn.dot_product_attention(q, k, v, mask=mask[None, None, :] > 0).reshape(seq, dim)
        else:
            scores = jnp.einsum("qhd,khd->hqk", q, k) / math.sqrt(head_dim)
            scores = jnp.where(mask[None, None, :] > 0, scores, jnp.finfo(scores.dtype).min)
            probs = jax.nn.softmax(scores, axis=-1)
            probs = self.probs_dropout(probs, key=k_probs, inference=k_probs is None)
            context = jnp.einsum("hqk,khd->qhd", probs, v).reshape(seq, dim)
        out = self.output_dropout(_dense(self.output, context), key=k_out, inference=k_out is None)
        return _norm(self.norm, x + out)


class Layer(eqx.Module):
    attention: SelfAttention
    intermediate: eqx.nn.Linear
    output: eqx.nn.Linear
    norm: eqx.nn.LayerNorm
    dropout: eqx.nn.Dropout

    def __call__(
        self, x: Float[Array, "seq d"], mask: Int[Array, " seq"], key: PRNGKeyArray | None
    ) -> Float[Array, "seq d"]:
        k_attn, k_out = _split(key, 2)
        x = self.attention(x, mask, k_attn)
        h = _dense(self.output, _gelu(_dense(self.intermediate, x)))
        h = self.dropout(h, key=k_out, inference=k_out is None)
        return _norm(self.norm, x + h)


class MaskedLMHead(eqx.Module):
    """Transform + decoder; the decoder weight is tied to the word embeddings, as in BERT."""

    transform: eqx.nn.Linear
    norm: eqx.nn.LayerNorm
    bias: Float[Array, " vocab"]

    def __call__(self, x: Float[Array, "seq d"], word: Float[Array, "vocab d"]) -> Float[Array, "seq vocab"]:
        h = _norm(self.norm, _gelu(_dense(self.transform, x)))
        return h @ word.T + self.bias


class BertForMaskedLM(eqx.Module):
    embeddings: Embeddings
    layers: tuple[Layer, ...]
    head: MaskedLMHead

    def require_ids(self, ids) -> None:
        """Refuse concrete token ids outside the vocabulary."""

        require_ids(ids, self.embeddings.word.weight, "BERT")

    def __call__(
        self, ids: Int[Array, " seq"], mask: Int[Array, " seq"], key: PRNGKeyArray | None = None
    ) -> Float[Array, "seq vocab"]:
        """Logits for one sequence; `key=None` switches dropout off (inference)."""
        keys = _split(key, len(self.layers) + 1)
        x = self.embeddings(ids, keys[0])
        for layer, k in zip(self.layers, keys[1:], strict=False):
            x = layer(x, mask, k)
        return self.head(x, self.embeddings.word.weight)
