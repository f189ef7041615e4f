"""The Equinox Qwen2 computes what the PyTorch Qwen2ForCausalLM computes: logits and every hidden state."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from jaxpitfalls.models import checkpoint
from jaxpitfalls.models.bounds import OutsideTable

# Each test builds a tiny Hugging Face model and compiles it; torch is imported inside them, so that `make
# test-fast` collects this module without paying for it.
pytestmark = pytest.mark.slow


def test_logits_and_every_hidden_state_match_pytorch(tiny_qwen2_dir):
    import torch
    import transformers

    model, config = checkpoint.load_model(tiny_qwen2_dir)
    assert config.num_key_value_heads < config.num_attention_heads  # grouped-query attention is exercised
    ids = np.random.default_rng(0).integers(0, config.vocab_size, 11)
    torch_model = transformers.Qwen2ForCausalLM.from_pretrained(tiny_qwen2_dir, attn_implementation="eager").eval()
    with torch.no_grad():
        out = torch_model(torch.tensor(ids[None]), output_hidden_states=True)
    logits, hidden = model(jnp.asarray(ids))
    np.testing.assert_allclose(logits, out.logits[0].numpy(), rtol=1e-4, atol=1e-4)
    assert len(hidden) == len(out.hidden_states) == config.num_hidden_layers + 1
    for i, (got, expected) in enumerate(zip(hidden, out.hidden_states, strict=True)):
        np.testing.assert_allclose(got, expected[0].numpy(), rtol=1e-4, atol=1e-4, err_msg=f"hidden state {i}")


def test_right_padding_leaves_the_real_tokens_unchanged(tiny_qwen2_dir):
    model, config = checkpoint.load_model(tiny_qwen2_dir)
    ids = jnp.asarray(np.random.default_rng(1).integers(0, config.vocab_size, 7))
    padded = jnp.concatenate([ids, jnp.zeros(5, dtype=ids.dtype)])
    mask = jnp.arange(12) < 7
    _, plain = model(ids)
    _, masked = model(padded, mask.astype(jnp.int32))
    for a, b in zip(plain, masked, strict=True):
        np.testing.assert_allclose(b[:7], a, rtol=1e-5, atol=1e-5)


def test_the_last_token_id_matches_pytorch_and_one_past_the_vocabulary_is_refused(tiny_qwen2_dir):
    """Qwen2's positions are rotary (no table to clamp; the config check holds sequences to max_positions);
    its token table is refused past its end instead of clamped."""
    import torch
    import transformers

    model, config = checkpoint.load_model(tiny_qwen2_dir)
    ids = np.full(5, config.vocab_size - 1)
    torch_model = transformers.Qwen2ForCausalLM.from_pretrained(tiny_qwen2_dir, attn_implementation="eager").eval()
    with torch.no_grad():
        expected = torch_model(torch.tensor(ids[None])).logits[0].numpy()
    np.testing.assert_allclose(model(jnp.asarray(ids))[0], expected, rtol=1e-4, atol=1e-4)
    model.require_ids(ids)
    with pytest.raises(OutsideTable, match=f"token ids 0..{config.vocab_size}, but its vocabulary has"):
        model.require_ids(np.array([0, config.vocab_size]))
