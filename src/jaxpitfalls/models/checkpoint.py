"""Hugging Face checkpoint directories (config.json + safetensors), offline: a seeded random init, or a local one."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

from ..results import write_dir_atomically

# family -> the transformers class prepare_model instantiates
FAMILIES = {"bert": "BertForMaskedLM", "gpt2": "GPT2LMHeadModel", "qwen2": "Qwen2ForCausalLM"}


def hf_config(family: str, spec: dict):
    """The `transformers` config for a model spec from config.yaml (family + size + seed)."""
    import transformers

    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; known: {', '.join(FAMILIES)}")
    hidden = spec["hidden"]
    if hidden % spec["head_dim"]:
        raise ValueError(f"hidden={hidden} is not a multiple of head_dim={spec['head_dim']}")
    if family == "qwen2":
        heads = hidden // spec["head_dim"]
        if heads % spec["kv_groups"]:
            raise ValueError(f"{heads} attention heads do not split into kv_groups={spec['kv_groups']}")
        return transformers.Qwen2Config(
            vocab_size=spec["vocab_size"], hidden_size=hidden, num_hidden_layers=spec["layers"],
            intermediate_size=spec["intermediate_ratio"] * hidden, num_attention_heads=heads,
            num_key_value_heads=heads // spec["kv_groups"], max_position_embeddings=spec["max_positions"],
            tie_word_embeddings=False, attn_implementation="eager",
            bos_token_id=spec["vocab_size"] - 1, eos_token_id=spec["vocab_size"] - 1,
        )
    if family == "gpt2":
        return transformers.GPT2Config(
            vocab_size=spec["vocab_size"], n_positions=spec["max_positions"], n_embd=hidden,
            n_layer=spec["layers"], n_head=hidden // spec["head_dim"], attn_implementation="eager",
            # GPT-2's own ids (50256) lie outside a small vocabulary; nothing here uses them
            bos_token_id=spec["vocab_size"] - 1, eos_token_id=spec["vocab_size"] - 1,
        )
    return transformers.BertConfig(
        vocab_size=spec["vocab_size"],
        hidden_size=hidden,
        num_hidden_layers=spec["layers"],
        num_attention_heads=hidden // spec["head_dim"],
        intermediate_size=spec["intermediate_ratio"] * hidden,
        max_position_embeddings=spec["max_positions"],
        attn_implementation="eager",
    )


def save_random_init(family: str, spec: dict, out_dir: str | os.PathLike) -> None:
    """Write a seeded random-init PyTorch model as config.json + model.safetensors, atomically."""
    import torch
    import transformers

    config = hf_config(family, spec)
    torch.manual_seed(spec["seed"])
    model = getattr(transformers, FAMILIES[family])(config).eval()
    write_dir_atomically(out_dir, model.save_pretrained)


def copy_local(source: str | os.PathLike, out_dir: str | os.PathLike) -> None:
    """Take a local Hugging Face directory (config.json + safetensors) in place of a random init."""
    source = Path(source)
    if not (source / "config.json").is_file():
        raise FileNotFoundError(f"{source} has no config.json: not a Hugging Face model directory")

    def copy(tmp: str) -> None:
        for f in source.iterdir():
            if f.name == "config.json" or f.name.endswith((".safetensors", ".safetensors.index.json")):
                shutil.copy2(f, tmp)

    write_dir_atomically(out_dir, copy)


def read_state_dict(model_dir: str | os.PathLike) -> dict[str, np.ndarray]:
    """All tensors of a single-file or sharded safetensors checkpoint, as numpy arrays."""
    model_dir = Path(model_dir)
    index = model_dir / "model.safetensors.index.json"
    if index.is_file():
        shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    else:
        shards = [p.name for p in sorted(model_dir.glob("*.safetensors"))]
    if not shards:
        raise FileNotFoundError(f"{model_dir} holds no .safetensors checkpoint")
    state: dict[str, np.ndarray] = {}
    for shard in shards:
        state.update(load_file(model_dir / shard))
    return state


def load_model(model_dir: str | os.PathLike, dropout: float | None = None, attention: str = "explicit"):
    """The Equinox model of a checkpoint directory and its config; `dropout` and `attention` override a BERT's."""
    values = json.loads((Path(model_dir) / "config.json").read_text())
    model_type = values.get("model_type")
    if model_type == "bert":
        from .convert_bert import BertConfig, bert_from_state_dict

        config = BertConfig.from_json(values)
        return bert_from_state_dict(read_state_dict(model_dir), config, dropout, attention), config
    if model_type == "gpt2":
        from .convert_gpt2 import GPT2Config, gpt2_from_state_dict

        config = GPT2Config.from_json(values)
        return gpt2_from_state_dict(read_state_dict(model_dir), config), config
    if model_type == "qwen2":
        from .convert_qwen2 import Qwen2Config, qwen2_from_state_dict

        config = Qwen2Config.from_json(values)
        return qwen2_from_state_dict(read_state_dict(model_dir), config), config
    raise ValueError(f"{model_dir}: model_type {model_type!r} is not supported (known: {', '.join(FAMILIES)})")
