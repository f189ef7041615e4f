"""Build the Equinox BERT from a `transformers` BERT state dict (names as `BertForMaskedLM` saves them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .bert import BertForMaskedLM, Embeddings, Layer, MaskedLMHead, SelfAttention
from .hf_config import FromJson, unsupported_activation

StateDict = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class BertConfig(FromJson):
    """A BERT config.json's fields the conversion needs, with transformers' defaults (its import costs seconds)."""

    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    vocab_size: int = 30522
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    layer_norm_eps: float = 1e-12


def _filled(make, values: tuple[np.ndarray, ...], get):
    """Build a module's shape only (no random init), then put the checkpoint's arrays in."""
    skeleton = eqx.filter_eval_shape(make)
    return eqx.tree_at(get, skeleton, tuple(jnp.asarray(v) for v in values))


def _linear(sd: StateDict, prefix: str) -> eqx.nn.Linear:
    weight, bias = sd[f"{prefix}.weight"], sd[f"{prefix}.bias"]
    out_features, in_features = weight.shape
    return _filled(
        lambda: eqx.nn.Linear(in_features, out_features, key=jax.random.key(0)),
        (weight, bias),
        lambda m: (m.weight, m.bias),
    )


def _layer_norm(sd: StateDict, prefix: str, eps: float) -> eqx.nn.LayerNorm:
    weight, bias = sd[f"{prefix}.weight"], sd[f"{prefix}.bias"]
    return _filled(
        lambda: eqx.nn.LayerNorm(weight.shape, eps=eps), (weight, bias), lambda m: (m.weight, m.bias)
    )


def _embedding(sd: StateDict, name: str) -> eqx.nn.Embedding:
    return eqx.nn.Embedding(weight=jnp.asarray(sd[name]))


def _layer(sd: StateDict, prefix: str, config: BertConfig, dropout: float, attention: str) -> Layer:
    eps = config.layer_norm_eps
    attention = SelfAttention(
        query=_linear(sd, f"{prefix}.attention.self.query"),
        key=_linear(sd, f"{prefix}.attention.self.key"),
        value=_linear(sd, f"{prefix}.attention.self.value"),
        output=_linear(sd, f"{prefix}.attention.output.dense"),
        norm=_layer_norm(sd, f"{prefix}.attention.output.LayerNorm", eps),
        probs_dropout=eqx.nn.Dropout(dropout),
        output_dropout=eqx.nn.Dropout(dropout),
        num_heads=config.num_attention_heads,
        implementation=attention,
    )
    return Layer(
        attention=attention,
        intermediate=_linear(sd, f"{prefix}.intermediate.dense"),
        output=_linear(sd, f"{prefix}.output.dense"),
        norm=_layer_norm(sd, f"{prefix}.output.LayerNorm", eps),
        dropout=eqx.nn.Dropout(dropout),
    )


ATTENTION = ("explicit", "fused")  # SelfAttention's implementations


def bert_from_state_dict(sd: StateDict, config: BertConfig, dropout: float | None = None,
                         attention: str = "explicit") -> BertForMaskedLM:
    """Convert; `dropout` overrides the dropout probabilities, `attention` picks the implementation."""
    if attention not in ATTENTION:
        raise ValueError(f"attention={attention!r}: expected one of {ATTENTION}")
    if problem := unsupported_activation("bert", vars(config)):
        raise ValueError(problem)
    p = config.hidden_dropout_prob if dropout is None else dropout
    eps = config.layer_norm_eps
    embeddings = Embeddings(
        word=_embedding(sd, "bert.embeddings.word_embeddings.weight"),
        position=_embedding(sd, "bert.embeddings.position_embeddings.weight"),
        token_type=_embedding(sd, "bert.embeddings.token_type_embeddings.weight"),
        norm=_layer_norm(sd, "bert.embeddings.LayerNorm", eps),
        dropout=eqx.nn.Dropout(p),
    )
    layers = tuple(
        _layer(sd, f"bert.encoder.layer.{i}", config, p, attention) for i in range(config.num_hidden_layers)
    )
    head = MaskedLMHead(
        transform=_linear(sd, "cls.predictions.transform.dense"),
        norm=_layer_norm(sd, "cls.predictions.transform.LayerNorm", eps),
        bias=jnp.asarray(sd["cls.predictions.bias"]),
    )
    return BertForMaskedLM(embeddings=embeddings, layers=layers, head=head)
