"""Real text, offline: installed packages' READMEs as a corpus, a byte-level BPE tokenizer trained on it, and its
tokens; deterministic for a given requirements.txt, each document's version and sha256 in the manifest.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from pathlib import Path

import numpy as np

from .results import write_dir_atomically


def long_description(name: str) -> str:
    """An installed package's long description (its README); "" if none."""
    meta = importlib.metadata.metadata(name)
    return (meta.get_payload() or meta.get("Description") or "").strip()


def corpus(packages: list[str]) -> dict[str, str]:
    """Each package's long description, by name, in order."""
    texts = {}
    for name in packages:
        text = long_description(name)
        if not text:
            raise ValueError(f"package {name!r} ships no long description to use as text")
        texts[name] = text
    return texts


def train_tokenizer(texts: list[str], vocab_size: int):
    """A byte-level BPE tokenizer (`tokenizers`; same texts and size, same merges)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return tokenizer


def prepare(packages: list[str], vocab_size: int, out_dir: str | os.PathLike) -> dict:
    """Write tokenizer.json, tokens.npz (an int32 array per document) and manifest.json into `out_dir`, whole."""
    texts = corpus(packages)
    tokenizer = train_tokenizer(list(texts.values()), vocab_size)
    tokens = {name: np.asarray(tokenizer.encode(text).ids, dtype=np.int32) for name, text in texts.items()}
    manifest = {
        "vocab_size": tokenizer.get_vocab_size(),
        "documents": {name: {"version": importlib.metadata.version(name), "characters": len(text),
                             "tokens": int(tokens[name].size),
                             "sha256": hashlib.sha256(text.encode()).hexdigest()}
                      for name, text in texts.items()},
    }

    def fill(tmp: str) -> None:
        tokenizer.save(str(Path(tmp) / "tokenizer.json"))
        _save_npz(str(Path(tmp) / "tokens.npz"), tokens)
        (Path(tmp) / "manifest.json").write_text(json.dumps(manifest, indent=1))

    write_dir_atomically(out_dir, fill)
    return manifest


def _save_npz(path: str, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as f:  # a file object: np.savez would append .npz to a bare path
        np.savez(f, **arrays)


def load_tokens(data_dir: str | os.PathLike) -> dict[str, np.ndarray]:
    with np.load(Path(data_dir) / "tokens.npz") as archive:
        return {name: archive[name] for name in archive.files}


def load_tokenizer(data_dir: str | os.PathLike):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(Path(data_dir) / "tokenizer.json"))
