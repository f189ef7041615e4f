"""The config against its JSON schema: every violation at once, one line each, naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError


def key_path(parts) -> str:
    """`studies.dispatch.sweep.seq[1]`: a location in the config as a user writes it."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _line(error: ValidationError) -> str:
    where = f"config {key_path(error.absolute_path)}"
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known))
        return f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} " \
               f"(known: {', '.join(known)})"
    if error.validator == "required":
        return f"{where}: {error.message.replace(' is a required property', '')} is required"
    return f"{where} = {_shown(error.instance)}: {error.message}"


def load(schema_path: str | Path) -> dict[str, Any]:
    with open(schema_path) as f:
        return yaml.safe_load(f)


def schema_problems(config: dict[str, Any], schema: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(one line per violation, jsonschema's full detail of each), in the config's order of keys."""
    errors = sorted(Draft202012Validator(schema).iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    return [_line(e) for e in errors], [str(e) for e in errors]
