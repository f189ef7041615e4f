"""Reading a Hugging Face config.json without importing `transformers` (whose import costs seconds)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Self


class FromJson:
    """For frozen config dataclasses: `from_json` keeps the fields the converter needs, defaults the rest."""

    @classmethod
    def from_json(cls, values: Mapping[str, Any]) -> Self:
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})


# The activation each family's converter implements, as (config.json key, value): a local checkpoint with
# another is refused by the converter, and before any job by the config check (configcheck/paths.py).
ACTIVATIONS = {"bert": ("hidden_act", "gelu"), "gpt2": ("activation_function", "gelu_new"),
               "qwen2": ("hidden_act", "silu")}


def unsupported_activation(family: str, values: Mapping[str, Any]) -> str | None:
    """What is wrong with a config's activation, or None where it is implemented."""
    key, implemented = ACTIVATIONS[family]
    used = values.get(key, implemented)
    return None if used == implemented else f"only {key}={implemented!r} is implemented, the checkpoint uses {used!r}"
