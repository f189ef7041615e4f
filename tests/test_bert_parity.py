"""The Equinox BERT computes what the PyTorch BertForMaskedLM computes, from the same checkpoint."""

from __future__ import annotations

import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpitfalls.models import checkpoint
from jaxpitfalls.models.bounds import OutsideTable

# Each test builds a tiny Hugging Face model and compiles it; torch is imported inside them, so that `make
# test-fast` collects this module without paying for it.
pytestmark = pytest.mark.slow


def _inputs(vocab: int):
    rng = np.random.default_rng(1)
    ids = rng.integers(0, vocab, (3, 12))
    mask = np.ones_like(ids)
    mask[1, 7:] = 0  # a padded row: masked keys must not leak into the real positions
    return ids, mask


def _pytorch_logits(model_dir, ids, mask):
    import torch
    import transformers

    model = transformers.BertForMaskedLM.from_pretrained(model_dir, attn_implementation="eager").eval()
    with torch.no_grad():
        return model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask)).logits.numpy()


def test_equinox_forward_matches_pytorch_logits(tiny_bert_dir):
    model, config = checkpoint.load_model(tiny_bert_dir)
    ids, mask = _inputs(config.vocab_size)
    expected = _pytorch_logits(tiny_bert_dir, ids, mask)
    got = np.asarray(jax.vmap(model)(jnp.asarray(ids), jnp.asarray(mask)))
    real = mask.astype(bool)
    np.testing.assert_allclose(got[real], expected[real], rtol=1e-5, atol=1e-5)
    assert np.abs(expected).max() > 0.1  # not a vacuous comparison of zeros


def test_fused_attention_computes_what_the_explicit_one_does_in_a_different_program(tiny_bert_dir):
    """The dispatch study's attention axis changes the program, not the function (dropout off)."""
    explicit, config = checkpoint.load_model(tiny_bert_dir, dropout=0.0)
    fused, _ = checkpoint.load_model(tiny_bert_dir, dropout=0.0, attention="fused")
    ids, mask = (jnp.asarray(a) for a in _inputs(config.vocab_size))
    run = [jax.jit(jax.vmap(m)) for m in (explicit, fused)]
    real = np.asarray(mask).astype(bool)
    np.testing.assert_allclose(np.asarray(run[1](ids, mask))[real], np.asarray(run[0](ids, mask))[real],
                               rtol=1e-4, atol=1e-4)
    texts = [f.lower(ids, mask).as_text() for f in run]
    assert texts[0] != texts[1]
    with pytest.raises(ValueError, match="attention='flash'"):
        checkpoint.load_model(tiny_bert_dir, attention="flash")


def test_dropout_is_off_without_a_key_and_on_with_one(tiny_bert_dir):
    model, config = checkpoint.load_model(tiny_bert_dir, dropout=0.5)
    ids, mask = (jnp.asarray(a[0]) for a in _inputs(config.vocab_size))
    plain = checkpoint.load_model(tiny_bert_dir, dropout=0.0)[0](ids, mask)
    np.testing.assert_array_equal(model(ids, mask), plain)
    assert not np.allclose(model(ids, mask, jax.random.key(0)), plain)


def test_loader_accepts_a_local_hugging_face_directory(tiny_bert_dir, tmp_path):
    local = tmp_path / "downloaded-bert"
    shutil.copytree(tiny_bert_dir, local)
    (local / "README.md").write_text("a model card the loader must ignore")
    out = tmp_path / "results" / "models" / "bert-local"
    checkpoint.copy_local(local, out)
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    a, _ = checkpoint.load_model(out)
    b, _ = checkpoint.load_model(tiny_bert_dir)
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(lambda x, y: bool(jnp.all(x == y)), a, b))


def test_loader_refuses_a_directory_without_a_checkpoint(tmp_path):
    with pytest.raises(FileNotFoundError, match="config.json"):
        checkpoint.copy_local(tmp_path, tmp_path / "out")
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    with pytest.raises(ValueError, match="llama"):
        checkpoint.load_model(tmp_path)
    (tmp_path / "config.json").write_text('{"model_type": "gpt2"}')
    with pytest.raises(FileNotFoundError, match="no .safetensors"):
        checkpoint.load_model(tmp_path)


def test_exactly_max_positions_matches_pytorch_and_one_more_is_refused(tiny_bert_dir):
    """JAX's gather would clamp position max_positions to the last row: the model refuses while tracing."""
    model, config = checkpoint.load_model(tiny_bert_dir)
    n = model.embeddings.position.weight.shape[0]  # max_positions of the checkpoint
    ids = np.random.default_rng(2).integers(0, config.vocab_size, (2, n))
    ids[0, -1] = config.vocab_size - 1  # the last token id is in the table too
    mask = np.ones_like(ids)
    got = np.asarray(jax.vmap(model)(jnp.asarray(ids), jnp.asarray(mask)))
    np.testing.assert_allclose(got, _pytorch_logits(tiny_bert_dir, ids, mask), rtol=1e-5, atol=1e-5)
    longer = jnp.zeros((2, n + 1), dtype=jnp.int32)
    with pytest.raises(OutsideTable, match=f"{n + 1} positions asked for, but its position table has {n}"):
        jax.jit(jax.vmap(model))(longer, jnp.ones_like(longer))  # refused while tracing
    model.require_ids(ids)
    with pytest.raises(OutsideTable, match=f"its vocabulary has {config.vocab_size}"):
        model.require_ids(np.array([0, config.vocab_size]))
