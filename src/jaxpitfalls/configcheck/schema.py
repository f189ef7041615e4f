"""The config against its JSON schema: every violation at once, one line each, naming the key."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

from .. import registry


def key_path(parts) -> str:
    """`studies.dispatch.sweep.seq[1]`: a location as a user writes it."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# Keys renamed since an earlier version, by the block they sit in (the block's key, the old key): the new name, so
# that a config written for that version is told what to write, not handed the list of known keys.
RENAMED = {("measure", "repeats"): "rounds", ("measure", "first_pass_repeats"): "first_pass_rounds"}


def _line(error: ValidationError) -> str:
    where = f"config {key_path(error.absolute_path)}"
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known))
        block = error.absolute_path[-1] if error.absolute_path else ""
        renamed = [f"{old!r} is now {RENAMED[block, old]!r}" for old in unknown if (block, old) in RENAMED]
        if renamed:
            return f"{where}: renamed since an earlier version: {'; '.join(renamed)}"
        return f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} " \
               f"(known: {', '.join(known)})"
    if error.validator == "required":
        return f"{where}: {error.message.replace(' is a required property', '')} is required"
    return f"{where} = {_shown(error.instance)}: {error.message}{_as_text(error)}"


def _as_text(error: ValidationError) -> str:
    """Why a number or flag reads as text where it does: Snakemake's `--config` gives a nested value as text."""
    meant = {"integer": int, "number": (int, float), "boolean": bool}.get(str(error.validator_value))
    if error.validator != "type" or meant is None or not isinstance(error.instance, str):
        return ""
    try:
        read = yaml.safe_load(error.instance)
    except yaml.YAMLError:
        return ""
    return (" (text: a value nested in --config arrives as text; give it in a --configfile)"
            if isinstance(read, meant) and not (meant is not bool and isinstance(read, bool)) else "")


def _read(path: str | Path) -> dict[str, Any]:
    with open(path) as f:
        return yaml.safe_load(f)


def merged(common: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """`own` over `common`, mappings merged key by key at every depth."""
    out = copy.deepcopy(common)
    for key, value in own.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = merged(out[key], value) if both else copy.deepcopy(value)
    return out


def _fragment(schema: Path | dict[str, Any]) -> dict[str, Any]:
    """Its config.schema.yaml, or the one a benchmark file's spec built."""
    return schema if isinstance(schema, dict) else _read(schema)


def load(schema_path: str | Path, refused: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The workflow's schema, with every study's fragment over `$defs/study`, and `refused` files' blocks as
    their setup reads (benchfile.spec.schema), so a refused file's block is checked too."""
    schema = _read(schema_path)
    fragments = {name: _fragment(registry.spec(name).schema) for name in registry.names()} | (refused or {})
    schema["properties"]["studies"]["properties"] = {
        name: merged(schema["$defs"]["study"], fragment) for name, fragment in fragments.items()}
    return schema


def _filling_defaults(properties_check):
    """jsonschema's FAQ recipe, as Snakemake's `validate`: a missing key gets a copy of its default."""
    def fill(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from properties_check(validator, properties, instance, schema)

    return fill


def _whole_number(_, instance) -> bool:
    """An integer as written: jsonschema's own takes 1.0, which names a model L1.0 and fails far from its key."""
    return isinstance(instance, int) and not isinstance(instance, bool)


Strict = validators.extend(
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole_number))
DefaultFilling = validators.extend(Strict, {"properties": _filling_defaults(Strict.VALIDATORS["properties"])})


def fill_defaults(config: dict[str, Any], schema: dict[str, Any]) -> None:
    """Fill in the schema's defaults, in place (the config has passed `schema_problems`)."""
    DefaultFilling(schema).validate(config)


def schema_problems(config: dict[str, Any], schema: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(one line per violation, its full detail), in the config's order of keys."""

    errors = sorted(Strict(schema).iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    return [_line(e) for e in errors], [str(e) for e in errors]
