"""How a configuration is named and read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Any

# What the plan adds to a configuration beside the study's own keys (`anchor`, `beside`: timing_configuration's).
PLAN_KEYS = ("id", "axes", "model", "anchor", "beside")


def value_label(value: Any) -> str:
    """A configuration value as its id writes it (`0.1`, `64`, `fused`)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def settings_of(conf: dict[str, Any]) -> dict[str, Any]:
    """A configuration's own keys, without PLAN_KEYS."""
    return {k: v for k, v in conf.items() if k not in PLAN_KEYS}


def is_base(conf: dict[str, Any]) -> bool:
    """Whether a configuration is its study's base (the one on every axis)."""

    return set(settings_of(conf)) <= set(conf["axes"])


def named_by(name: str, patterns: Iterable[str]) -> bool:
    """Whether a shell-wildcard pattern of `patterns` names `name` (`*` crosses `/`): how `compare.primary` and
    `history.primary` declare rows and series."""
    return any(fnmatchcase(name, p) for p in patterns)


def naming_nothing(patterns: Iterable[str], names: Sequence[str]) -> list[str]:
    """The patterns that name none of `names`: a typo would declare nothing."""
    return [p for p in patterns if not any(fnmatchcase(n, p) for n in names)]
