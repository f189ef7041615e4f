"""Reading a Hugging Face config.json without importing `transformers` (whose import alone costs seconds)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Self


class FromJson:
    """For frozen config dataclasses: `from_json` keeps the fields the converter needs, defaults the rest."""

    @classmethod
    def from_json(cls, values: Mapping[str, Any]) -> Self:
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})
