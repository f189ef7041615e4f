"""The Equinox GPT-2 computes what the PyTorch GPT2LMHeadModel computes, whole-sequence and with its cache."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from jaxpitfalls.models import checkpoint
from jaxpitfalls.models.bounds import OutsideTable

# Each test builds a tiny Hugging Face model and compiles it; torch is imported inside them, so that `make
# test-fast` collects this module without paying for it.
pytestmark = pytest.mark.slow


def _pytorch(model_dir):
    import transformers

    return transformers.GPT2LMHeadModel.from_pretrained(model_dir, attn_implementation="eager").eval()


def test_logits_match_pytorch_whole_sequence_and_padded(tiny_gpt2_dir):
    import torch

    model, config = checkpoint.load_model(tiny_gpt2_dir)
    ids = np.random.default_rng(0).integers(0, config.vocab_size, 10)
    with torch.no_grad():
        expected = _pytorch(tiny_gpt2_dir)(torch.tensor(ids[None])).logits[0].numpy()
    np.testing.assert_allclose(model.logits(jnp.asarray(ids)), expected, rtol=1e-5, atol=1e-5)
    padded = jnp.asarray(np.concatenate([ids, np.zeros(6, dtype=ids.dtype)]))
    np.testing.assert_allclose(model.logits(padded, jnp.int32(10))[:10], expected, rtol=1e-5, atol=1e-5)
    assert np.abs(expected).max() > 0.1


def test_cached_decoding_matches_the_whole_sequence(tiny_gpt2_dir):
    model, config = checkpoint.load_model(tiny_gpt2_dir)
    ids = jnp.asarray(np.random.default_rng(1).integers(0, config.vocab_size, 9))
    whole = model.logits(ids)
    last, cache = model.prefill(ids[:6], max_len=12)
    np.testing.assert_allclose(last, whole[5], rtol=1e-5, atol=1e-5)
    for position in range(6, 9):
        logits, cache = model.decode(ids[position], jnp.int32(position), cache)
        np.testing.assert_allclose(logits, whole[position], rtol=1e-4, atol=1e-5)


def test_exactly_max_positions_matches_pytorch_and_one_more_is_refused(tiny_gpt2_dir):
    """Whole sequence, prefill's cache and decoding: max positions work, one more is refused, never clamped."""
    import torch

    model, config = checkpoint.load_model(tiny_gpt2_dir)
    n = config.n_positions
    ids = np.random.default_rng(3).integers(0, config.vocab_size, n)
    ids[-1] = config.vocab_size - 1
    with torch.no_grad():
        expected = _pytorch(tiny_gpt2_dir)(torch.tensor(ids[None])).logits[0].numpy()
    np.testing.assert_allclose(model.logits(jnp.asarray(ids)), expected, rtol=1e-4, atol=1e-5)
    last, cache = model.prefill(jnp.asarray(ids[: n - 1]), max_len=n)
    logits, _ = model.decode(jnp.asarray(ids[-1]), jnp.int32(n - 1), cache)  # the last position there is
    np.testing.assert_allclose(logits, expected[-1], rtol=1e-4, atol=1e-5)
    with pytest.raises(OutsideTable, match=f"{n + 1} positions"):
        model.logits(jnp.zeros(n + 1, dtype=jnp.int32))
    with pytest.raises(OutsideTable, match=f"{n + 1} positions"):
        model.prefill(jnp.asarray(ids[:4]), max_len=n + 1)
    model.require_ids(ids)
    with pytest.raises(OutsideTable, match="vocabulary"):
        model.require_ids([config.vocab_size])
